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
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bind/bind_internal.h"
#include "bind/cholmod_lib.h"
#include "core/clock.h"
#include "core/parallel.h"

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
    bool taken[256];
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
            taken[k] = false;
        }
        j->h[r] = 0;
        j->nb[r] = 0;
        double best = -1;
        /* The bones nearest first, each found when needed (the walk stops after the nearest
         * visible one, a bone or two in): the order a stable sort by distance gives. */
        for (size_t q = 0; q < nh; q++) {
            size_t k = nh;
            for (size_t c = 0; c < nh; c++)
                if (!taken[c] && (k == nh || dist[c] < dist[k]))
                    k = c;
            taken[k] = true;
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

/* --- the system ---------------------------------------------------------------- */

/* The matrix of one attempt: the cotangent Laplacian of the rows (row[v]: vertex -> row,
 * or -1), every diagonal present, as CHOLMOD's lower triangle, with its fill-reducing
 * ordering (the analysis). H is added to the diagonal afterwards (system_heat): the
 * ordering depends on the pattern only, so the first attempt's is found on a thread of its
 * own while H is computed. */
typedef struct heat_system {
    bind_laplacian lap;
    cholmod_sparse *A;
    cholmod_factor *L;
    size_t *diag;     /* per row: its diagonal entry in A->x */
    double seconds;   /* building and analysing */
    am_status status;
    am_error err;
} heat_system;

static void system_free(const am_cholmod_api *chol, cholmod_common *cm, heat_system *sys)
{
    chol->free_factor(&sys->L, cm);
    chol->free_sparse(&sys->A, cm);
    am_bind_laplacian_free(&sys->lap);
    free(sys->diag);
    sys->diag = NULL;
}

static am_status system_build(const float *pos, const uint32_t *tris, size_t tri_count, const am_cholmod_api *chol,
                              cholmod_common *cm, const int32_t *row, size_t rows, heat_system *sys, am_error *err)
{
    double t0 = am_clock_wall_s();
    am_status s = am_bind_laplacian_build(pos, tris, tri_count, row, rows, &sys->lap, err);
    if (s)
        return s;
    const bind_laplacian *lap = &sys->lap;
    if (lap->nnz > (size_t)INT_MAX || rows > (size_t)INT_MAX)
        return am_fail(err, AM_ERR_INVALID, "heat matrix: %zu entries are too many for CHOLMOD", lap->nnz);
    /* the Laplacian's lower triangle as it is, sorted and packed, as CHOLMOD keeps it */
    sys->A = chol->allocate_sparse(rows, rows, lap->nnz, 1, 1, -1, CHOLMOD_REAL, cm);
    sys->diag = malloc((rows ? rows : 1) * sizeof *sys->diag);
    if (!sys->A || !sys->diag)
        return am_fail_nomem(err, "heat matrix");
    int *Ap = sys->A->p, *Ai = sys->A->i;
    double *Ax = sys->A->x;
    for (size_t c = 0; c <= rows; c++)
        Ap[c] = (int)lap->col_start[c];
    for (size_t k = 0; k < lap->nnz; k++) {
        Ai[k] = lap->row[k];
        Ax[k] = lap->val[k];
    }
    for (size_t c = 0; c < rows; c++)
        sys->diag[c] = lap->col_start[c]; /* each column's first entry */
    sys->L = chol->analyze(sys->A, cm);
    sys->seconds = am_clock_wall_s() - t0;
    if (!sys->L)
        return cm->status == CHOLMOD_OUT_OF_MEMORY ? am_fail_nomem(err, "Cholesky analysis")
                                                   : am_fail(err, AM_ERR_INVALID, "CHOLMOD failed (status %d)", cm->status);
    return AM_OK;
}

typedef struct system_job {
    const float *pos;
    const uint32_t *tris;
    size_t tri_count;
    const am_cholmod_api *chol;
    cholmod_common *cm; /* the caller's, untouched by it until the join */
    const int32_t *row;
    size_t rows;
    heat_system *sys;
} system_job;

static void system_run(void *user)
{
    system_job *j = user;
    am_error_clear(&j->sys->err);
    j->sys->status = system_build(j->pos, j->tris, j->tri_count, j->chol, j->cm, j->row, j->rows, j->sys, &j->sys->err);
}

/* --- the start, before the routes are known -------------------------------------- */

struct bind_heat_start {
    am_cholmod_api chol;
    cholmod_common cm;     /* the job's until the join, then am_bind_heat's */
    int32_t *row;          /* vertex -> row: every vertex of an island with faces */
    size_t rows;
    heat_system sys;
    system_job job;
    am_task task;
    bool joined;
};

static void common_setup(const am_cholmod_api *chol, cholmod_common *cm)
{
    chol->start(cm);
    cm->print = 0;
    cm->error_handler = NULL;
    cm->supernodal = CHOLMOD_AUTO;
    /* CHOLMOD goes supernodal (BLAS on dense blocks) from 40 flops per factor entry. Here
     * the 10k creature (45 per entry) factored in 0.020-0.027 s supernodal and 0.009 s
     * simplicial; the 50k (99 per entry) in 0.10-0.12 s supernodal, 0.14-0.15 simplicial. */
    cm->supernodal_switch = 80;
}

bind_heat_start *am_bind_heat_begin(const float *pos, size_t vertex_count, const uint32_t *tris, size_t tri_count,
                                    const uint32_t *vertex_island, const size_t *island_tri_count, int threads)
{
    bind_heat_start *hs = calloc(1, sizeof *hs);
    if (!hs)
        return NULL;
    am_error ignored;
    am_error_clear(&ignored);
    hs->row = malloc((vertex_count ? vertex_count : 1) * sizeof *hs->row);
    if (!hs->row || am_cholmod_open(&hs->chol, threads, &ignored)) {
        free(hs->row);
        free(hs);
        return NULL; /* am_bind_heat finds the same trouble and says so */
    }
    for (size_t v = 0; v < vertex_count; v++)
        hs->row[v] = island_tri_count[vertex_island[v]] > 0 ? (int32_t)hs->rows++ : -1;
    common_setup(&hs->chol, &hs->cm);
    hs->job = (system_job){pos, tris, tri_count, &hs->chol, &hs->cm, hs->row, hs->rows, &hs->sys};
    am_task_start(&hs->task, system_run, &hs->job);
    return hs;
}

static void start_join(bind_heat_start *hs)
{
    if (!hs->joined)
        am_task_join(&hs->task);
    hs->joined = true;
}

void am_bind_heat_end(bind_heat_start *hs)
{
    if (!hs)
        return;
    start_join(hs);
    system_free(&hs->chol, &hs->cm, &hs->sys);
    hs->chol.finish(&hs->cm);
    free(hs->row);
    free(hs);
}

/* --- the solve ------------------------------------------------------------------ */

/* Columns [c0, c1) of B solved on their own thread, with a CHOLMOD workspace of their own
 * (the factor is only read). */
typedef struct solve_half {
    const am_cholmod_api *chol;
    cholmod_factor *L;
    const double *b;   /* rows x c1-c0, column-major */
    size_t rows, cols;
    cholmod_dense *X;
} solve_half;

static void solve_half_run(void *user)
{
    solve_half *h = user;
    cholmod_common cm;
    h->chol->start(&cm);
    cm.print = 0;
    cm.error_handler = NULL;
    cholmod_dense *B = h->chol->zeros(h->rows, h->cols, CHOLMOD_REAL, &cm);
    if (B) {
        memcpy(B->x, h->b, h->rows * h->cols * sizeof(double));
        h->X = h->chol->solve(CHOLMOD_A, h->L, B, &cm);
    }
    h->chol->free_dense(&B, &cm);
    h->chol->finish(&cm);
}

/* X = A^-1 B for ncol columns, in two halves when there are enough to share: the second
 * beside the first when a second thread is allowed. The halves are the same on any thread
 * count (the BLAS may round a block of columns differently from a single one), so the
 * weights do not depend on --threads. */
static am_status solve_columns(const am_cholmod_api *chol, cholmod_common *cm, cholmod_factor *L, const double *b,
                               size_t rows, size_t ncol, int threads, double *x, am_error *err)
{
    size_t first = ncol >= 4 && rows >= 2000 ? ncol / 2 : ncol;
    am_task task = {0};
    solve_half second = {chol, L, b + rows * first, rows, ncol - first, NULL};
    bool beside = first < ncol && am_parallel_threads(threads, 2) >= 2;
    if (beside)
        am_task_start(&task, solve_half_run, &second);
    solve_half mine = {chol, L, b, rows, first, NULL};
    cholmod_dense *B = chol->zeros(rows, first ? first : 1, CHOLMOD_REAL, cm);
    if (B) {
        memcpy(B->x, b, rows * first * sizeof(double));
        mine.X = chol->solve(CHOLMOD_A, L, B, cm);
    }
    chol->free_dense(&B, cm);
    if (beside)
        am_task_join(&task);
    else if (first < ncol)
        solve_half_run(&second);
    am_status s = AM_OK;
    if (!mine.X || (first < ncol && !second.X))
        s = am_fail_nomem(err, "heat solve");
    else {
        memcpy(x, mine.X->x, rows * first * sizeof(double));
        if (first < ncol)
            memcpy(x + rows * first, second.X->x, rows * (ncol - first) * sizeof(double));
    }
    chol->free_dense(&mine.X, cm);
    chol->free_dense(&second.X, cm);
    return s;
}

am_status am_bind_heat(const bind_problem *p, bind_heat_start *start, bind_candidates *cand, bool *island_failed,
                       bind_heat_stats *stats, am_error *err)
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
    for (size_t v = 0; v < nv; v++) {
        row[v] = -1;
        if (p->island_solve[p->vertex_island[v]]) {
            row[v] = (int32_t)n;
            verts[n++] = (uint32_t)v;
        }
    }
    /* The first attempt's system (every row) is built and analysed beside H: begun with the
     * ray scene (start) when its rows are these, else here. */
    am_cholmod_api own_chol;
    cholmod_common own_cm, *cmp = &own_cm;
    const am_cholmod_api *cholp = &own_chol;
    bool same_start = start && start->rows == n && memcmp(start->row, row, nv * sizeof *row) == 0;
    if (start) {
        cholp = &start->chol;
        cmp = &start->cm;
        if (!same_start) {
            start_join(start); /* another system: its analysis is not ours */
            system_free(cholp, cmp, &start->sys);
        }
    } else {
        if ((s = am_cholmod_open(&own_chol, p->threads, err)))
            goto done;
        common_setup(&own_chol, &own_cm);
    }
    const am_cholmod_api chol = *cholp;
    heat_system first;
    memset(&first, 0, sizeof first);
    system_job sj = {p->pos, p->tris, p->tri_count, &chol, cmp, row, n, &first};
    am_task build_task = {0};
    if (!same_start)
        am_task_start(&build_task, system_run, &sj);
    double t0 = am_clock_wall_s();
    compute_h(p, verts, n, h, nb, bone, err);
    stats->seconds_visibility = am_clock_wall_s() - t0;
    if (same_start) {
        start_join(start);
        first = start->sys;
        memset(&start->sys, 0, sizeof start->sys);
    } else
        am_task_join(&build_task);
    for (size_t r = 0; r < n; r++)
        if (nb[r] > 0)
            heated[p->vertex_island[verts[r]]] = true;
    bool any_failed = false;
    for (size_t k = 0; k < p->island_count; k++)
        if (p->island_solve[k] && !heated[k])
            island_failed[k] = any_failed = true; /* nothing heats it: singular */
    if (first.status && !any_failed) {
        *err = first.err;
        s = first.status;
    }

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
        bool same_rows = w == n; /* nothing left out: the system built beside H holds */
        n = rows = w;
        if (rows == 0)
            break;
        heat_system sys;
        if (attempt == 0 && same_rows) {
            sys = first;
            memset(&first, 0, sizeof first);
        } else {
            memset(&sys, 0, sizeof sys);
            if ((s = system_build(p->pos, p->tris, p->tri_count, &chol, cmp, row, rows, &sys, err))) {
                system_free(&chol, cmp, &sys);
                break;
            }
        }
        system_free(&chol, cmp, &first); /* unused when rows were left out */
        /* Which bones heat anything: one right-hand side each. */
        int *col = malloc(p->bone_count * sizeof *col);
        if (!col) {
            system_free(&chol, cmp, &sys);
            s = am_fail_nomem(err, "heat matrix");
            break;
        }
        size_t ncol = 0;
        for (size_t b = 0; b < p->bone_count; b++)
            col[b] = -1;
        for (size_t r = 0; r < rows; r++)
            for (int k = 0; k < nb[r]; k++)
                if (col[bone[MAX_CLOSEST * r + k]] < 0)
                    col[bone[MAX_CLOSEST * r + k]] = (int)ncol++;
        double *Ax = sys.A->x;
        for (size_t r = 0; r < rows; r++)
            Ax[sys.diag[r]] += 4.0 * sys.lap.area[r] * h[r];
        double t1 = am_clock_wall_s();
        bool factored = chol.factorize(sys.A, sys.L, cmp) && cmp->status == CHOLMOD_OK;
        stats->factorisations++;
        stats->seconds_factor += sys.seconds + am_clock_wall_s() - t1;
        if (!factored && cmp->status != CHOLMOD_NOT_POSDEF) {
            bool nomem = cmp->status == CHOLMOD_OUT_OF_MEMORY;
            system_free(&chol, cmp, &sys);
            free(col);
            s = nomem ? am_fail_nomem(err, "Cholesky factor")
                      : am_fail(err, AM_ERR_INVALID, "CHOLMOD failed (status %d)", cmp->status);
            break;
        }
        if (!factored) {
            /* Not positive definite at column L->minor: that island leaves the system. */
            size_t minor = sys.L->minor < rows ? sys.L->minor : 0;
            size_t perm_row = sys.L->Perm ? (size_t)((int *)sys.L->Perm)[minor] : minor;
            island_failed[p->vertex_island[sys_vert[perm_row]]] = true;
            system_free(&chol, cmp, &sys);
            free(col);
            continue;
        }
        stats->unknowns = rows;
        stats->factor_nonzeros = (size_t)cmp->lnz;
        double t2 = am_clock_wall_s();
        size_t nc = ncol ? ncol : 1;
        double *bx = calloc(rows * nc, sizeof *bx), *x = malloc(rows * nc * sizeof *x);
        if (!bx || !x)
            s = am_fail_nomem(err, "heat solve");
        else {
            for (size_t r = 0; r < rows; r++)
                for (int k = 0; k < nb[r]; k++)
                    bx[r + rows * (size_t)col[bone[MAX_CLOSEST * r + k]]] += 4.0 * sys.lap.area[r] * h[r] / nb[r];
            s = solve_columns(&chol, cmp, sys.L, bx, rows, nc, p->threads, x, err);
        }
        stats->seconds_solve += am_clock_wall_s() - t2;
        if (!s) {
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
        free(bx);
        free(x);
        system_free(&chol, cmp, &sys);
        free(col);
        break;
    }
    system_free(&chol, cmp, &first);
    if (!start)
        chol.finish(cmp);
done:
    free(row);
    free(verts);
    free(h);
    free(nb);
    free(bone);
    free(heated);
    return s;
}
