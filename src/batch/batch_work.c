/* One job (batch.h: am_batch_work): `animesh import` as a child process into a staging
 * folder, the folder exchanged with the creature's in one rename, and the result record. */
#define _GNU_SOURCE /* renameat2 (RENAME_EXCHANGE), prctl, wait4 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "batch/batch_internal.h"
#include "core/io.h"
#include "core/jsonlex.h"

#define STAGE_TAG ".work-"

bool am_batch_job_from_env(size_t *job)
{
    static const char *const vars[] = {"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv(vars[i]);
        if (!v || !*v)
            continue;
        char *end = NULL;
        errno = 0;
        unsigned long long n = strtoull(v, &end, 10);
        if (errno == 0 && *end == '\0' && v[0] != '-') {
            *job = (size_t)n;
            return true;
        }
    }
    return false;
}

/* --- folders ------------------------------------------------------------------------------ */

/* Remove a folder and everything in it (no link followed: a link is removed, not entered). */
static void remove_tree_at(int parent, const char *name, unsigned depth)
{
    int fd = depth < 64 ? openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
    if (fd >= 0) {
        DIR *d = fdopendir(fd);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                if (unlinkat(fd, e->d_name, 0) != 0 && (errno == EISDIR || errno == EPERM))
                    remove_tree_at(fd, e->d_name, depth + 1);
            }
            closedir(d);
        } else {
            close(fd);
        }
    } else if (errno == ELOOP || errno == ENOTDIR) {
        unlinkat(parent, name, 0); /* a link (or a file) where a folder was: it goes, its target stays */
        return;
    }
    unlinkat(parent, name, AT_REMOVEDIR);
}

static void remove_tree(const char *path)
{
    remove_tree_at(AT_FDCWD, path, 0);
}

/* Staging folders of this creature left by killed workers of this host ("." NAME ".work-"
 * HOST "-" PID, the PID no longer alive) are removed; other hosts' are theirs to sweep. */
static void sweep_stages(const char *creatures, const char *name, const char *host)
{
    DIR *d = opendir(creatures);
    if (!d)
        return;
    char prefix[300];
    snprintf(prefix, sizeof prefix, ".%s" STAGE_TAG "%s-", name, host);
    size_t plen = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, plen) != 0)
            continue;
        char *end = NULL;
        long pid = strtol(e->d_name + plen, &end, 10);
        if (!end || *end || pid <= 0)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
            continue; /* alive */
        char path[AM_BATCH_PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", creatures, e->d_name) < (int)sizeof path)
            remove_tree(path);
    }
    closedir(d);
}

static void sync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* The staging folder becomes the creature's: exchanged with the old one in one rename (a
 * reader sees the old set or the new, never a mix), then the old one removed. */
static am_status swap_in(const char *stage, const char *final, am_error *err)
{
    if (syscall(SYS_renameat2, AT_FDCWD, stage, AT_FDCWD, final, RENAME_EXCHANGE) == 0) {
        remove_tree(stage); /* now the previous set */
        return AM_OK;
    }
    if (errno == ENOENT && rename(stage, final) == 0)
        return AM_OK;
    if (errno == EINVAL || errno == ENOSYS) {
        /* A file system without the exchange: the old set moved aside first. */
        char aside[AM_BATCH_PATH_MAX + 8];
        snprintf(aside, sizeof aside, "%s.old", stage);
        if (rename(final, aside) == 0 && rename(stage, final) == 0) {
            remove_tree(aside);
            return AM_OK;
        }
    }
    return am_fail_where(err, AM_ERR_IO, final, "cannot put the new set in place: %s", strerror(errno));
}

/* --- the import child ------------------------------------------------------------------------ */

typedef struct argv_list {
    char **v;
    size_t n, cap;
} argv_list;

static bool arg_add(argv_list *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 32;
        char **v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return false;
        a->v = v;
        a->cap = cap;
    }
    char *copy = am_strdup(s);
    if (!copy)
        return false;
    a->v[a->n++] = copy;
    a->v[a->n] = NULL;
    return true;
}

static void args_free(argv_list *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
}

static bool import_args(argv_list *a, const am_batch_plan *plan, const am_batch_job *j, const char *self,
                        const char *stage)
{
    char oar[AM_BATCH_PATH_MAX + 128];
    snprintf(oar, sizeof oar, "%s/%s.oar", stage, j->name);
    bool ok = arg_add(a, self) && arg_add(a, "import") && arg_add(a, j->model) && arg_add(a, "--out") &&
              arg_add(a, stage) && arg_add(a, "--name") && arg_add(a, j->name) && arg_add(a, "--json") &&
              arg_add(a, "--skeleton") && arg_add(a, plan->skeleton) && arg_add(a, "--oar") && arg_add(a, oar);
    for (size_t i = 0; ok && i < j->motion_count; i++)
        ok = arg_add(a, "--anim") && arg_add(a, j->motions[i]);
    if (ok && j->map)
        ok = arg_add(a, "--map") && arg_add(a, j->map);
    if (ok && j->has_position) {
        char at[128];
        snprintf(at, sizeof at, "%.3f,%.3f,%.3f", j->position[0], j->position[1], j->position[2]);
        ok = arg_add(a, "--at") && arg_add(a, at);
    }
    for (size_t i = 0; ok && i < j->option_count; i++)
        ok = arg_add(a, j->options[i]);
    return ok;
}

/* Run the import; its JSON report into `report_path`, its messages into `log_path`. */
static am_status run_import(char **argv, const char *report_path, const char *log_path, am_batch_work_result *r,
                            am_error *err)
{
    int out = open(report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0 || log < 0) {
        int e = errno;
        if (out >= 0)
            close(out);
        if (log >= 0)
            close(log);
        return am_fail_where(err, AM_ERR_IO, report_path, "cannot create: %s", strerror(e));
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(out);
        close(log);
        return am_fail(err, AM_ERR_IO, "cannot start the import: fork: %s", strerror(e));
    }
    if (pid == 0) {
        /* A killed worker takes its import with it: nothing writes into a swept folder. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(out, 1);
        dup2(log, 2);
        execv(argv[0], argv);
        dprintf(2, "animesh batch: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(out);
    close(log);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            return am_fail(err, AM_ERR_IO, "the import was lost: wait4: %s", strerror(errno));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    r->cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
               1e-6 * (double)ru.ru_stime.tv_usec;
    r->peak_rss_kb = ru.ru_maxrss;
    if (WIFEXITED(status)) {
        r->exit_code = WEXITSTATUS(status);
        r->signal = 0;
    } else {
        r->exit_code = -1;
        r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
    r->ok = r->exit_code == 0;
    return AM_OK;
}

/* A failed import's one line: its last "animesh..." message, else its last line. False when
 * out of memory. */
static bool last_error(const char *log_path, const am_batch_work_result *r, am_string *out)
{
    if (r->signal)
        return am_string_setf(out, "the import was killed by signal %d (%s)", r->signal, strsignal(r->signal));
    uint8_t *data = NULL;
    size_t n = 0;
    am_error ignored;
    if (!am_string_setf(out, "the import failed with exit code %d", r->exit_code))
        return false;
    if (am_read_file(log_path, &data, &n, &ignored))
        return true;
    char *text = (char *)data, *best = NULL, *last = NULL;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (*line) {
            last = line;
            if (strncmp(line, "animesh", 7) == 0 && !strstr(line, ": warning:") && strstr(line, ": "))
                best = line;
        }
        line = nl ? nl + 1 : NULL;
    }
    bool kept = !(best || last) || am_string_set(out, best ? best : last);
    free(data);
    return kept;
}

/* --- the record ------------------------------------------------------------------------------ */

static am_status write_record(const am_batch_plan *plan, const am_batch_job *j, const char *key,
                              const am_batch_work_result *r, const char *report_path, time_t started,
                              const char *host, am_error *err)
{
    json_t *report = NULL;
    if (r->ok) {
        json_error_t jerr;
        report = json_load_file(report_path, 0, &jerr);
    }
    char when[32];
    struct tm tm;
    gmtime_r(&started, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_t *motions = json_array();
    for (size_t i = 0; motions && i < j->motion_count; i++)
        json_array_append_new(motions, json_string(j->motions[i]));
    struct rusage self;
    memset(&self, 0, sizeof self);
    getrusage(RUSAGE_SELF, &self); /* the worker's own peak, beside its import's */
    json_t *rec = json_pack("{s:i,s:s,s:s,s:s,s:s,s:i,s:i,s:s,s:s,s:o,s:s,s:f,s:f,s:f,s:I,s:I,s:s,s:o}",
                            "animesh_batch_record", 1, "name", j->name, "key", key, "version", plan->version,
                            "status", r->ok ? "done" : "failed", "exit", r->exit_code, "signal", r->signal, "error",
                            r->ok ? "" : am_str(&r->error), "model", j->model, "motions", motions ? motions : json_array(),
                            "started", when, "wall_s", r->wall_s, "cpu_s", r->cpu_s, "job_wall_s", r->job_wall_s, "peak_rss_kb",
                            (json_int_t)r->peak_rss_kb, "worker_rss_kb", (json_int_t)self.ru_maxrss, "host", host, "report", report ? report : json_null());
    char *text = rec ? json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL; /* the head first */
    json_decref(rec);
    if (!text)
        return am_fail_nomem(err, "a batch record");
    char dir[AM_BATCH_PATH_MAX], path[AM_BATCH_PATH_MAX], file[160];
    snprintf(file, sizeof file, "%s.json", j->name);
    am_status s = AM_OK;
    if (!am_batch_path(dir, sizeof dir, plan->catalog, AM_BATCH_RESULTS_DIR, NULL) ||
        !am_batch_path(path, sizeof path, plan->catalog, AM_BATCH_RESULTS_DIR, file))
        s = am_fail_where(err, AM_ERR_INVALID, plan->catalog, "the catalogue's path is too long");
    if (!s)
        s = am_mkdir_p(dir, err);
    if (!s)
        s = am_write_file_atomic(path, text, strlen(text), err);
    free(text);
    return s;
}

am_status am_batch_record_peek(const char *catalog, const char *name, am_batch_record *rec, am_error *err)
{
    memset(rec, 0, sizeof *rec);
    char path[AM_BATCH_PATH_MAX], file[160];
    snprintf(file, sizeof file, "%s.json", name);
    if (!am_batch_path(path, sizeof path, catalog, AM_BATCH_RESULTS_DIR, file))
        return am_fail_where(err, AM_ERR_INVALID, catalog, "the catalogue's path is too long");
    uint8_t *data = NULL;
    size_t size = 0;
    am_status s = am_read_file(path, &data, &size, err);
    if (s)
        return AM_ERR_IO;
    /* Only the head is needed: "key", "status" and "error" come before the report (the record
     * is written in order), so the one-pass reader stops there instead of parsing the report. */
    am_jlex l;
    am_error lex_err;
    am_jlex_from_mem(&l, (const char *)data, size, path, &lex_err);
    bool have_key = false, have_status = false, have_error = false;
    s = am_jlex_expect(&l, '{');
    for (size_t i = 0; !s && !(have_key && have_status && have_error) && am_jlex_more(&l, '}', i, &s); i++) {
        if ((s = am_jlex_key(&l)))
            break;
        if (strcmp(l.str, "report") == 0)
            break;
        char field[16];
        snprintf(field, sizeof field, "%s", l.str);
        bool want = strcmp(field, "key") == 0 || strcmp(field, "status") == 0 || strcmp(field, "error") == 0;
        if (!want) {
            s = am_jlex_skip(&l);
            continue;
        }
        if ((s = am_jlex_string(&l)))
            break;
        if (field[0] == 'k' && l.str_len == 64) {
            memcpy(rec->key, l.str, 65);
            have_key = true;
        } else if (field[0] == 's') {
            rec->ok = strcmp(l.str, "done") == 0;
            have_status = true;
        } else if (field[0] == 'e') {
            if (!am_string_setn(&rec->error, l.str, l.str_len)) {
                s = AM_ERR_NOMEM;
                break;
            }
            have_error = true;
        }
    }
    am_jlex_free(&l);
    free(data);
    if (s == AM_ERR_NOMEM)
        return am_fail_nomem(err, "a record's error");
    if (s || !have_key || !have_status)
        return am_fail_where(err, AM_ERR_INVALID, path, "a damaged record");
    return AM_OK;
}

void am_batch_record_free(am_batch_record *rec)
{
    if (rec)
        am_string_free(&rec->error);
}

am_batch_state am_batch_job_state(const am_batch_plan *plan, size_t job, am_string *error)
{
    am_string_free(error);
    if (job >= plan->job_count)
        return AM_BATCH_PENDING;
    am_batch_record rec;
    am_error ignored;
    am_batch_state st;
    if (am_batch_record_peek(plan->catalog, plan->jobs[job].name, &rec, &ignored))
        st = AM_BATCH_PENDING;
    else if (strcmp(rec.key, plan->jobs[job].key) != 0)
        st = AM_BATCH_STALE;
    else
        st = rec.ok ? AM_BATCH_DONE : AM_BATCH_FAILED;
    if (st == AM_BATCH_FAILED && error) /* moved, not copied */
        *error = rec.error, rec.error = (am_string){0};
    am_batch_record_free(&rec);
    return st;
}

/* --- the job --------------------------------------------------------------------------------- */

void am_batch_work_result_free(am_batch_work_result *result)
{
    if (result)
        am_string_free(&result->error);
}

am_status am_batch_work(const am_batch_plan *plan, size_t job, const am_batch_work_options *opts,
                        am_batch_work_result *result, am_error *err)
{
    memset(result, 0, sizeof *result);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (opts->started_s > 0) {
        t0.tv_sec = (time_t)opts->started_s;
        t0.tv_nsec = (long)((opts->started_s - (double)t0.tv_sec) * 1e9);
    }
    if (job >= plan->job_count)
        return am_fail(err, AM_ERR_USAGE, "no job %zu: the plan has %zu (0..%zu)", job, plan->job_count,
                       plan->job_count ? plan->job_count - 1 : 0);
    const am_batch_job *j = &plan->jobs[job];
    char key[65];
    am_error key_err;
    am_error_clear(&key_err);
    /* The key of the bytes as they are now; an input gone is the job's failure, recorded. */
    bool inputs_ok = am_batch_key_with(plan, j, NULL, key, &key_err) == AM_OK;
    if (!inputs_ok)
        memcpy(key, j->key, 65);
    am_batch_record rec;
    memset(&rec, 0, sizeof rec);
    am_error ignored;
    bool current = inputs_ok && !opts->force && am_batch_record_peek(plan->catalog, j->name, &rec, &ignored) == AM_OK &&
                   rec.ok && strcmp(rec.key, key) == 0;
    am_batch_record_free(&rec);
    if (current) {
        result->skipped = result->ok = true;
        return AM_OK;
    }
    char creatures[AM_BATCH_PATH_MAX], stage[AM_BATCH_PATH_MAX], final[AM_BATCH_PATH_MAX], host[64] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    for (char *c = host; *c; c++)
        if (*c == '/' || *c == '-')
            *c = '_';
    char stage_name[300];
    snprintf(stage_name, sizeof stage_name, ".%s" STAGE_TAG "%s-%ld", j->name, host, (long)getpid());
    if (!am_batch_path(creatures, sizeof creatures, plan->catalog, AM_BATCH_CREATURES_DIR, NULL) ||
        !am_batch_path(stage, sizeof stage, plan->catalog, AM_BATCH_CREATURES_DIR, stage_name) ||
        !am_batch_path(final, sizeof final, plan->catalog, AM_BATCH_CREATURES_DIR, j->name))
        return am_fail_where(err, AM_ERR_INVALID, plan->catalog, "the catalogue's path is too long");
    am_status s = am_mkdir_p(creatures, err);
    if (s)
        return s;
    sweep_stages(creatures, j->name, host);
    remove_tree(stage);
    if (mkdir(stage, 0777) != 0)
        return am_fail_where(err, AM_ERR_IO, stage, "cannot create: %s", strerror(errno));
    time_t started = time(NULL);
    am_progress(opts->progress, opts->progress_user, "job %zu: %s", job, j->name);
    char report_path[AM_BATCH_PATH_MAX + 160], log_path[AM_BATCH_PATH_MAX + 160];
    snprintf(report_path, sizeof report_path, "%s/%s.report.json", stage, j->name);
    snprintf(log_path, sizeof log_path, "%s/%s.log", stage, j->name);
    if (!inputs_ok) {
        result->exit_code = AM_ERR_IO;
        char shown[AM_ERROR_TEXT_MAX];
        if (!am_string_set(&result->error, am_error_format(&key_err, shown, sizeof shown)))
            s = am_fail_nomem(err, "the job's error");
    } else {
        argv_list args = {0};
        if (!import_args(&args, plan, j, opts->self, stage))
            s = am_fail_nomem(err, "the import's arguments");
        else
            s = run_import(args.v, report_path, log_path, result, err);
        args_free(&args);
        if (!s && !result->ok && !last_error(log_path, result, &result->error))
            s = am_fail_nomem(err, "the job's error");
    }
    if (!s && result->ok) {
        /* The catalogue page's thumbnail, from the creature's pose sheet (with --bench). */
        char sheet[AM_BATCH_PATH_MAX + 160], thumb[AM_BATCH_PATH_MAX + 160];
        snprintf(sheet, sizeof sheet, "%s/%s_poses.png", stage, j->name);
        snprintf(thumb, sizeof thumb, "%s/%s.thumb.png", stage, j->name);
        am_error thumb_err;
        if (access(sheet, F_OK) == 0)
            am_batch_thumbnail(sheet, thumb, &thumb_err); /* no thumbnail is no failure */
        sync_dir(stage);
        s = swap_in(stage, final, err);
        if (!s) {
            sync_dir(creatures);
            snprintf(report_path, sizeof report_path, "%s/%s.report.json", final, j->name);
        }
    }
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    result->job_wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (!s)
        s = write_record(plan, j, key, result, report_path, started, host, err);
    remove_tree(stage); /* a failed import's partial files, or nothing */
    return s;
}
