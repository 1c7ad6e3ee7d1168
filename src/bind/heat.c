/* Bone heat (Baran and Popovic 2007, as Blender's meshlaplacian.c builds it), solved with
 * one CHOLMOD factorisation for every bone (bind_internal.h).
 *
 * Blender solves, per bone j and vertex i,
 *     (0.5 / varea_i) sum_k t_ik (w_i - w_k) + H_i w_i = H_i p_ij
 * with t_ik the cotangent weights (each face's cot divided by the edge's face count),
 * varea_i twice the mixed Voronoi area A_i, H_i = n_i / d_i^2 (n_i bones at the nearest
 * distance d_i, each with p_ij = 1 / n_i). That system is not symmetric; multiplying row i
 * by 4 A_i gives the same solution from a symmetric positive definite one,
 *     L w + 4 A H w = 4 A H p_j     (L the cotangent stiffness, laplacian.c),
 * which one Cholesky factorisation solves for every right-hand side at once.
 * d_i is Blender's heat_source_distance: the distance to the bone's closest point divided
 * by 0.5 (cos + 1.001), cos between the vertex normal and the direction from that point,
 * so a bone behind the surface counts as far. Unlike Blender (which heats a vertex only
 * when the nearest bone of all is visible), the nearest VISIBLE bone heats it, as the
 * paper says. Distances are in the normalised frame (unit height), so H is scale-free. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bind/bind_internal.h"
#include "bind/cholmod_lib.h"
#include "core/clock.h"

#define MAX_CLOSEST 4
#define DISTANCE_EPSILON 1e-4 /* Blender: bones within (1 + eps) of the nearest all heat */
#define MIN_DISTANCE 1e-4     /* Blender: d clamped before 1/d^2 (unit height here) */

/* --- H and the heating bones, per vertex (parallel) ----------------------------- */

typedef struct heat_job {
    const bind_problem *p;
    const uint32_t *verts;  /* system row -> welded vertex */
    size_t begin, end;
    double *h;              /* per row */
    uint8_t *nb;            /* per row: bones heating it */
    uint16_t *bone;         /* per row: MAX_CLOSEST bone indices */
} heat_job;

static double heat_distance(const bind_problem *p, const bind_bone *b, uint32_t v, float closest[3])
{
    const float *x = &p->pos[3 * v];
    double d = am_bind_segment_closest(b->a, b->b, x, closest);
    if (d <= 0)
        return 0.0;
    const float *n = &p->normal[3 * v];
    double c = ((x[0] - closest[0]) * n[0] + (x[1] - closest[1]) * n[1] + (x[2] - closest[2]) * n[2]) / d;
    return d / (0.5 * (c + 1.001));
}

static void *heat_worker(void *arg)
{
    heat_job *j = arg;
    const bind_problem *p = j->p;
    double dist[256];
    uint32_t order[256];
    float closest[256][3];
    for (size_t r = j->begin; r < j->end; r++) {
        uint32_t v = j->verts[r];
        uint32_t isl = p->vertex_island[v];
        const uint32_t *held = &p->island_bones[p->island_bone_start[isl]];
        size_t nh = p->island_bone_start[isl + 1] - p->island_bone_start[isl];
        if (nh > 256)
            nh = 256;
        for (size_t k = 0; k < nh; k++) {
            dist[k] = heat_distance(p, &p->bones[held[k]], v, closest[k]);
            /* insertion sort of the order by distance */
            size_t at = k;
            while (at > 0 && dist[order[at - 1]] > dist[k]) {
                order[at] = order[at - 1];
                at--;
            }
            order[at] = (uint32_t)k;
        }
        j->h[r] = 0;
        j->nb[r] = 0;
        double best = -1;
        for (size_t q = 0; q < nh; q++) {
            size_t k = order[q];
            if (best >= 0 && dist[k] > best * (1.0 + DISTANCE_EPSILON))
                break;
            if (!am_bind_vis_clear(p->vis, &p->pos[3 * v], closest[k]))
                continue;
            if (best < 0)
                best = dist[k];
            if (j->nb[r] < MAX_CLOSEST)
                j->bone[MAX_CLOSEST * r + j->nb[r]++] = (uint16_t)held[k];
        }
        if (j->nb[r] > 0) {
            double d = fmax(best, MIN_DISTANCE);
            j->h[r] = j->nb[r] / (d * d);
        }
    }
    return NULL;
}

static int worker_count(int threads)
{
    if (threads > 0)
        return threads > 64 ? 64 : threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static am_status compute_h(const bind_problem *p, const uint32_t *verts, size_t n, double *h, uint8_t *nb,
                           uint16_t *bone, am_error *err)
{
    int nt = worker_count(p->threads);
    if ((size_t)nt > n / 256 + 1)
        nt = (int)(n / 256 + 1);
    heat_job jobs[64];
    pthread_t tid[64];
    bool started[64] = {false};
    for (int t = 0; t < nt; t++) {
        jobs[t] = (heat_job){p, verts, n * (size_t)t / (size_t)nt, n * (size_t)(t + 1) / (size_t)nt, h, nb, bone};
        if (t > 0)
            started[t] = pthread_create(&tid[t], NULL, heat_worker, &jobs[t]) == 0;
    }
    heat_worker(&jobs[0]);
    for (int t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            heat_worker(&jobs[t]); /* no thread: do it here */
    }
    (void)err;
    return AM_OK;
}

/* --- the solve ------------------------------------------------------------------ */

am_status am_bind_heat(const bind_problem *p, bind_candidates *cand, bool *island_failed, bind_heat_stats *stats,
                       am_error *err)
{
    memset(stats, 0, sizeof *stats);
    size_t nv = p->vertex_count;
    int32_t *row = malloc((nv ? nv : 1) * sizeof *row);
    uint32_t *verts = malloc((nv ? nv : 1) * sizeof *verts);
    double *h = malloc((nv ? nv : 1) * sizeof *h);
    uint8_t *nb = malloc(nv ? nv : 1);
    uint16_t *bone = malloc((nv ? nv : 1) * MAX_CLOSEST * sizeof *bone);
    bool *heated = calloc(p->island_count + 1, sizeof *heated);
    if (!row || !verts || !h || !nb || !bone || !heated) {
        free(row);
        free(verts);
        free(h);
        free(nb);
        free(bone);
        free(heated);
        return am_fail_nomem(err, "heat");
    }
    am_status s = AM_OK;
    /* Rows: every vertex of a solved island. */
    size_t n = 0;
    for (size_t v = 0; v < nv; v++)
        if (p->island_solve[p->vertex_island[v]])
            verts[n++] = (uint32_t)v;
    double t0 = am_clock_wall_s();
    compute_h(p, verts, n, h, nb, bone, err);
    stats->seconds_visibility = am_clock_wall_s() - t0;
    for (size_t r = 0; r < n; r++)
        if (nb[r] > 0)
            heated[p->vertex_island[verts[r]]] = true;
    for (size_t k = 0; k < p->island_count; k++)
        if (p->island_solve[k] && !heated[k])
            island_failed[k] = true; /* nothing heats it: singular */

    am_cholmod_api chol;
    if (!s)
        s = am_cholmod_open(&chol, p->threads, err);
    if (s)
        goto done;
    cholmod_common cm;
    chol.start(&cm);
    cm.print = 0;
    cm.error_handler = NULL;
    cm.supernodal = CHOLMOD_AUTO;
    /* CHOLMOD goes supernodal (BLAS on dense blocks) from 40 flops per factor entry. Here
     * the 10k creature (45 per entry) factored in 0.020-0.027 s supernodal and 0.009 s
     * simplicial; the 50k (99 per entry) in 0.10-0.12 s supernodal, 0.14-0.15 simplicial. */
    cm.supernodal_switch = 80;

    for (int attempt = 0; attempt < 64 && !s; attempt++) {
        /* The system: rows of solved, not failed islands. */
        size_t rows = 0;
        for (size_t v = 0; v < nv; v++)
            row[v] = -1;
        uint32_t *sys_vert = verts; /* reuse: row -> vertex, compacted below */
        size_t w = 0;
        for (size_t r = 0; r < n; r++) {
            uint32_t v = verts[r];
            if (island_failed[p->vertex_island[v]])
                continue;
            h[w] = h[r];
            nb[w] = nb[r];
            memmove(&bone[MAX_CLOSEST * w], &bone[MAX_CLOSEST * r], MAX_CLOSEST * sizeof *bone);
            sys_vert[w] = v;
            row[v] = (int32_t)w++;
        }
        n = rows = w;
        if (rows == 0)
            break;
        bind_laplacian lap;
        s = am_bind_laplacian_build(p->pos, p->tris, p->tri_count, row, rows, &lap, err);
        if (s)
            break;
        /* Which bones heat anything: one right-hand side each. */
        int *col = malloc(p->bone_count * sizeof *col);
        size_t ncol = 0;
        cholmod_triplet *T = col ? chol.allocate_triplet(rows, rows, lap.nnz + rows, -1, CHOLMOD_REAL, &cm) : NULL;
        if (!T) {
            free(col);
            am_bind_laplacian_free(&lap);
            s = am_fail_nomem(err, "heat matrix");
            break;
        }
        for (size_t b = 0; b < p->bone_count; b++)
            col[b] = -1;
        for (size_t r = 0; r < rows; r++)
            for (int k = 0; k < nb[r]; k++)
                if (col[bone[MAX_CLOSEST * r + k]] < 0)
                    col[bone[MAX_CLOSEST * r + k]] = (int)ncol++;
        int *Ti = T->i, *Tj = T->j;
        double *Tx = T->x;
        for (size_t e = 0; e < lap.nnz; e++) {
            Ti[e] = lap.ri[e];
            Tj[e] = lap.ci[e];
            Tx[e] = lap.val[e];
        }
        for (size_t r = 0; r < rows; r++) {
            Ti[lap.nnz + r] = (int)r;
            Tj[lap.nnz + r] = (int)r;
            Tx[lap.nnz + r] = 4.0 * lap.area[r] * h[r];
        }
        T->nnz = lap.nnz + rows;
        double t1 = am_clock_wall_s();
        cholmod_sparse *A = chol.triplet_to_sparse(T, T->nnz, &cm);
        chol.free_triplet(&T, &cm);
        cholmod_factor *L = A ? chol.analyze(A, &cm) : NULL;
        bool factored = L && chol.factorize(A, L, &cm) && cm.status == CHOLMOD_OK;
        stats->factorisations++;
        stats->seconds_factor += am_clock_wall_s() - t1;
        if (!A || !L || (!factored && cm.status != CHOLMOD_NOT_POSDEF)) {
            bool nomem = cm.status == CHOLMOD_OUT_OF_MEMORY;
            chol.free_factor(&L, &cm);
            chol.free_sparse(&A, &cm);
            free(col);
            am_bind_laplacian_free(&lap);
            s = nomem ? am_fail_nomem(err, "Cholesky factor")
                      : am_fail(err, AM_ERR_INVALID, "CHOLMOD failed (status %d)", cm.status);
            break;
        }
        if (!factored) {
            /* Not positive definite at column L->minor: that island leaves the system. */
            size_t minor = L->minor < rows ? L->minor : 0;
            size_t perm_row = L->Perm ? (size_t)((int *)L->Perm)[minor] : minor;
            island_failed[p->vertex_island[sys_vert[perm_row]]] = true;
            chol.free_factor(&L, &cm);
            chol.free_sparse(&A, &cm);
            free(col);
            am_bind_laplacian_free(&lap);
            continue;
        }
        stats->unknowns = rows;
        stats->factor_nonzeros = (size_t)cm.lnz;
        double t2 = am_clock_wall_s();
        cholmod_dense *B = chol.zeros(rows, ncol ? ncol : 1, CHOLMOD_REAL, &cm);
        cholmod_dense *X = NULL;
        if (B) {
            double *bx = B->x;
            for (size_t r = 0; r < rows; r++)
                for (int k = 0; k < nb[r]; k++)
                    bx[r + rows * (size_t)col[bone[MAX_CLOSEST * r + k]]] += 4.0 * lap.area[r] * h[r] / nb[r];
            X = chol.solve(CHOLMOD_A, L, B, &cm);
        }
        stats->seconds_solve += am_clock_wall_s() - t2;
        if (!X) {
            s = am_fail_nomem(err, "heat solve");
        } else {
            const double *x = X->x;
            for (size_t b = 0; b < p->bone_count; b++) {
                if (col[b] < 0)
                    continue;
                const double *xc = &x[rows * (size_t)col[b]];
                int joint = p->bones[b].joint;
                for (size_t r = 0; r < rows; r++)
                    if (xc[r] > 1e-4)
                        am_bind_candidates_add(&cand[sys_vert[r]], joint, (float)(xc[r] > 1.0 ? 1.0 : xc[r]));
            }
        }
        chol.free_dense(&X, &cm);
        chol.free_dense(&B, &cm);
        chol.free_factor(&L, &cm);
        chol.free_sparse(&A, &cm);
        free(col);
        am_bind_laplacian_free(&lap);
        break;
    }
    chol.finish(&cm);
done:
    free(row);
    free(verts);
    free(h);
    free(nb);
    free(bone);
    free(heated);
    return s;
}

void am_bind_preload(const am_bind_options *opts)
{
    am_bind_options o;
    if (opts)
        o = *opts;
    else
        am_bind_options_default(&o);
    if (o.method != AM_BIND_HEAT)
        return; /* the segment method solves nothing */
    am_cholmod_api chol;
    am_error ignored;
    am_error_clear(&ignored);
    (void)am_cholmod_open(&chol, o.threads, &ignored); /* kept loaded: am_bind's open finds it */
}
