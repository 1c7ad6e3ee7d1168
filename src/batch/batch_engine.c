/* Engines (batch.h: am_batch_run, am_batch_wait): the jobs that need running, handed to
 * worker processes here, to GNU parallel, or to Slurm as a job array. Every engine runs the
 * same `animesh batch work CATALOG --job N`; the coordinator follows progress by reading the
 * records the workers write. */
#define _GNU_SOURCE /* strsignal */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch/batch_internal.h"
#include "core/io.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The bytes a job reads (its model and motions): the best guess of its time before it ran. */
static uint64_t input_bytes(const am_batch_job *j)
{
    struct stat st;
    uint64_t n = stat(j->model, &st) == 0 ? (uint64_t)st.st_size : 0;
    for (size_t i = 0; i < j->motion_count; i++)
        if (stat(j->motions[i], &st) == 0)
            n += (uint64_t)st.st_size;
    return n;
}

typedef struct sized_job {
    uint64_t bytes;
    size_t job;
} sized_job;

static int sized_cmp(const void *a, const void *b)
{
    const sized_job *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->job < y->job ? -1 : x->job > y->job;
}

/* Largest first: the long jobs start early and the short ones fill in at the end, so no
 * worker is left with a big creature while the others idle (40 jobs on 2 workers: the tail
 * was a tenth of the run). Out of memory: the plan's order, as it was. */
static void order_largest_first(const am_batch_plan *plan, size_t *todo, size_t n)
{
    sized_job *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return;
    for (size_t i = 0; i < n; i++)
        s[i] = (sized_job){input_bytes(&plan->jobs[todo[i]]), todo[i]};
    qsort(s, n, sizeof *s, sized_cmp);
    for (size_t i = 0; i < n; i++)
        todo[i] = s[i].job;
    free(s);
}

/* The jobs this run starts: indices into the plan, in its order. */
static am_status pick_jobs(const am_batch_plan *plan, const am_batch_run_options *o, size_t **todo, size_t *count,
                           am_error *err)
{
    *todo = calloc(plan->job_count ? plan->job_count : 1, sizeof **todo);
    if (!*todo)
        return am_fail_nomem(err, "the job list");
    *count = 0;
    for (size_t i = 0; i < plan->job_count; i++) {
        am_batch_state st = am_batch_job_state(plan, i, NULL);
        if (o->force || st == AM_BATCH_PENDING || st == AM_BATCH_STALE || (st == AM_BATCH_FAILED && o->retry_failed))
            (*todo)[(*count)++] = i;
    }
    return AM_OK;
}

/* Of the jobs in todo, how many have a record for their current key (done, failed). */
/* True when the job's record was written at or after `since` (wall clock): a record an
 * earlier run left (a --force or retry run's jobs start with one) is not this run's. */
static bool record_written_since(const am_batch_plan *plan, size_t job, const struct timespec *since)
{
    char file[160], path[AM_BATCH_PATH_MAX];
    snprintf(file, sizeof file, "%s.json", plan->jobs[job].name);
    struct stat st;
    if (!am_batch_path(path, sizeof path, plan->catalog, AM_BATCH_RESULTS_DIR, file) || stat(path, &st) != 0)
        return false;
    return st.st_mtim.tv_sec > since->tv_sec ||
           (st.st_mtim.tv_sec == since->tv_sec && st.st_mtim.tv_nsec >= since->tv_nsec);
}

/* The jobs of todo that are done or failed; with `since` (NULL: any record), only those whose
 * record was written since then. */
static void count_finished(const am_batch_plan *plan, const size_t *todo, size_t n, const struct timespec *since,
                           bool *finished, size_t *done, size_t *failed)
{
    *done = *failed = 0;
    for (size_t i = 0; i < n; i++) {
        am_batch_state st = since && !record_written_since(plan, todo[i], since)
                                ? AM_BATCH_PENDING
                                : am_batch_job_state(plan, todo[i], NULL);
        if (finished)
            finished[i] = st == AM_BATCH_DONE || st == AM_BATCH_FAILED;
        *done += st == AM_BATCH_DONE;
        *failed += st == AM_BATCH_FAILED;
    }
}

static void progress_line(const am_batch_run_options *o, size_t done, size_t failed, size_t total, double t0)
{
    size_t finished = done + failed;
    double elapsed = now_s() - t0;
    double rate = elapsed > 0 ? (double)finished / elapsed : 0;
    if (finished && rate > 0)
        am_progress(o->progress, o->progress_user, "%zu/%zu done, %zu failed, %.2f jobs/s, about %.0f s left", finished,
                    total, failed, rate, (double)(total - finished) / rate);
    else
        am_progress(o->progress, o->progress_user, "%zu/%zu done, %zu failed", finished, total, failed);
}

static am_status run_dir(const am_batch_plan *plan, char *out, size_t size, am_error *err)
{
    if (!am_batch_path(out, size, plan->catalog, AM_BATCH_RUN_DIR, NULL))
        return am_fail_where(err, AM_ERR_INVALID, plan->catalog, "the catalogue's path is too long");
    return am_mkdir_p(out, err);
}

/* Start a program with stdout and stderr to `log` (NULL: inherited). */
static pid_t start(char *const *argv, const char *log)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    if (log) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0)
        dup2(devnull, 0);
    execvp(argv[0], argv);
    dprintf(2, "animesh batch: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* --- local -------------------------------------------------------------------------------------- */

static am_status run_local(const am_batch_plan *plan, const am_batch_run_options *o, const size_t *todo, size_t n,
                           size_t *killed, am_error *err)
{
    unsigned workers = o->jobs ? o->jobs : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    if (workers < 1)
        workers = 1;
    char dir[AM_BATCH_PATH_MAX], log[AM_BATCH_PATH_MAX + 32];
    am_status s = run_dir(plan, dir, sizeof dir, err);
    if (s)
        return s;
    snprintf(log, sizeof log, "%s/workers.log", dir);
    pid_t *pids = calloc(workers, sizeof *pids);
    size_t *slot_job = calloc(workers, sizeof *slot_job);
    if (!pids || !slot_job) {
        free(pids);
        free(slot_job);
        return am_fail_nomem(err, "the workers");
    }
    double t0 = now_s();
    size_t next = 0, running = 0, done = 0, failed = 0;
    while (!s && (next < n || running)) {
        while (next < n && running < workers) {
            char index[32];
            snprintf(index, sizeof index, "%zu", todo[next]);
            char *argv[] = {(char *)o->self, "batch", "work", plan->catalog, "--job", index,
                            o->force ? "--force" : NULL, NULL};
            pid_t pid = start(argv, log);
            if (pid < 0) {
                s = am_fail(err, AM_ERR_IO, "cannot start a worker: fork: %s", strerror(errno));
                break;
            }
            for (unsigned w = 0; w < workers; w++)
                if (!pids[w]) {
                    pids[w] = pid;
                    slot_job[w] = todo[next];
                    break;
                }
            running++;
            next++;
        }
        if (!running)
            break;
        int status = 0;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (unsigned w = 0; w < workers; w++) {
            if (pids[w] != pid)
                continue;
            pids[w] = 0;
            running--;
            const am_batch_job *j = &plan->jobs[slot_job[w]];
            am_string error = {0};
            am_batch_state st = am_batch_job_state(plan, slot_job[w], &error);
            if (WIFSIGNALED(status)) { /* killed: whatever its record says is the previous run's */
                failed++;
                (*killed)++;
                am_progress(o->progress, o->progress_user, "%s: KILLED by signal %d mid-job: its previous set and "
                            "record stand; run again to convert it", j->name, WTERMSIG(status));
            } else if (st == AM_BATCH_DONE) {
                done++;
                am_progress(o->progress, o->progress_user, "%s: done", j->name);
            } else {
                failed++;
                if (st != AM_BATCH_FAILED &&
                    !am_string_setf(&error, "the worker ended without a record (exit code %d; see %s)",
                                    WEXITSTATUS(status), log))
                    am_string_free(&error); /* out of memory: the line says less */
                am_progress(o->progress, o->progress_user, "%s: FAILED: %s", j->name, am_str(&error));
            }
            am_string_free(&error);
            progress_line(o, done, failed, n, t0);
        }
    }
    /* An error of our own: the workers still running are left to finish their jobs. */
    for (unsigned w = 0; w < workers; w++)
        if (pids[w])
            while (waitpid(pids[w], NULL, 0) < 0 && errno == EINTR) {
            }
    free(pids);
    free(slot_job);
    return s;
}

/* --- GNU parallel --------------------------------------------------------------------------------- */

/* Wait for a child, reporting progress from the records every second. */
static int wait_following(pid_t pid, const am_batch_plan *plan, const am_batch_run_options *o, const size_t *todo,
                          size_t n)
{
    double t0 = now_s();
    struct timespec started; /* the records this run writes are the ones counted */
    clock_gettime(CLOCK_REALTIME, &started);
    size_t last = (size_t)-1;
    int status = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            break;
        size_t done, failed;
        count_finished(plan, todo, n, &started, NULL, &done, &failed);
        if (done + failed != last) {
            last = done + failed;
            progress_line(o, done, failed, n, t0);
        }
        struct timespec pause = {0, 250 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return status;
}

/* Jobs GNU parallel's joblog says a signal ended (its 8th column): reported and counted. */
static size_t joblog_killed(const char *joblog, const am_batch_plan *plan, const am_batch_run_options *o)
{
    FILE *f = fopen(joblog, "r");
    if (!f)
        return 0;
    char line[AM_BATCH_PATH_MAX * 3];
    size_t killed = 0;
    while (fgets(line, sizeof line, f)) {
        int sig = 0;
        const char *job = strstr(line, "--job"); /* our own worker command line */
        /* Seq Host Starttime JobRuntime Send Receive Exitval Signal Command */
        if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %d", &sig) != 1 || sig == 0 || !job)
            continue;
        size_t index = (size_t)strtoull(job + 5, NULL, 10); /* strtoull skips the space */
        killed++;
        am_progress(o->progress, o->progress_user, "%s: KILLED by signal %d mid-job: its previous set and record "
                    "stand; run again to convert it", index < plan->job_count ? plan->jobs[index].name : "?", sig);
    }
    fclose(f);
    return killed;
}

static am_status run_parallel(const am_batch_plan *plan, const am_batch_run_options *o, const size_t *todo, size_t n,
                              size_t *killed, am_error *err)
{
    char dir[AM_BATCH_PATH_MAX];
    am_status s = run_dir(plan, dir, sizeof dir, err);
    if (s)
        return s;
    char list[AM_BATCH_PATH_MAX + 32], joblog[AM_BATCH_PATH_MAX + 32], jobs[32], cmd[AM_BATCH_PATH_MAX * 2 + 64];
    snprintf(list, sizeof list, "%s/todo.txt", dir);
    snprintf(joblog, sizeof joblog, "%s/parallel.joblog", dir);
    snprintf(jobs, sizeof jobs, "%u", o->jobs ? o->jobs : 0);
    am_buf b = {0};
    for (size_t i = 0; i < n && !s; i++)
        s = am_buf_printf(&b, err, "%zu\n", todo[i]);
    if (!s)
        s = am_write_file_atomic(list, b.data ? b.data : (uint8_t *)"", b.size, err);
    am_buf_free(&b);
    if (s)
        return s;
    /* parallel runs the command through a shell: the paths are single-quoted for it. */
    char qself[AM_BATCH_PATH_MAX + 8], qcat[AM_BATCH_PATH_MAX + 8];
    if (strchr(o->self, '\'') || strchr(plan->catalog, '\''))
        return am_fail(err, AM_ERR_USAGE, "GNU parallel: the program's and the catalogue's paths may not hold a quote");
    snprintf(qself, sizeof qself, "'%s'", o->self);
    snprintf(qcat, sizeof qcat, "'%s'", plan->catalog);
    snprintf(cmd, sizeof cmd, "%s batch work %s --job {}%s", qself, qcat, o->force ? " --force" : "");
    size_t cap = 16 + 2 * o->sshlogin_count;
    char **argv = calloc(cap, sizeof *argv);
    if (!argv)
        return am_fail_nomem(err, "GNU parallel's arguments");
    size_t k = 0;
    argv[k++] = "parallel";
    argv[k++] = "--will-cite";
    argv[k++] = "--joblog";
    argv[k++] = joblog;
    if (o->resume)
        argv[k++] = "--resume";
    argv[k++] = "-j";
    argv[k++] = o->jobs ? jobs : "100%";
    for (size_t i = 0; i < o->sshlogin_count; i++) {
        argv[k++] = "--sshlogin";
        argv[k++] = (char *)o->sshlogins[i];
    }
    argv[k++] = cmd;
    argv[k++] = "::::";
    argv[k++] = list;
    argv[k] = NULL;
    char log[AM_BATCH_PATH_MAX + 32];
    snprintf(log, sizeof log, "%s/parallel.log", dir);
    pid_t pid = start(argv, log);
    free(argv);
    if (pid < 0)
        return am_fail(err, AM_ERR_IO, "cannot start GNU parallel: fork: %s", strerror(errno));
    int status = wait_following(pid, plan, o, todo, n);
    /* parallel's exit code counts failed jobs; 255 and 127 mean it did not run. */
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 127 || WEXITSTATUS(status) == 255))
        return am_fail(err, AM_ERR_IO, "GNU parallel did not run (exit code %d; see %s): is the parallel package installed?",
                       WEXITSTATUS(status), log);
    *killed = joblog_killed(joblog, plan, o);
    return AM_OK;
}

/* --- Slurm ---------------------------------------------------------------------------------------- */

/* The array's index list, consecutive runs as ranges ("0-3,7,9-12"). */
static am_status array_spec(am_buf *b, const size_t *todo, size_t n, am_error *err)
{
    am_status s = AM_OK;
    for (size_t i = 0; i < n && !s;) {
        size_t j = i;
        while (j + 1 < n && todo[j + 1] == todo[j] + 1)
            j++;
        s = j > i ? am_buf_printf(b, err, "%s%zu-%zu", i ? "," : "", todo[i], todo[j])
                  : am_buf_printf(b, err, "%s%zu", i ? "," : "", todo[i]);
        i = j + 1;
    }
    return s;
}

static am_status run_slurm(const am_batch_plan *plan, const am_batch_run_options *o, const size_t *todo, size_t n,
                           am_batch_run_result *result, am_error *err)
{
    char dir[AM_BATCH_PATH_MAX];
    am_status s = run_dir(plan, dir, sizeof dir, err);
    if (s)
        return s;
    if (strchr(o->self, '\'') || strchr(plan->catalog, '\''))
        return am_fail(err, AM_ERR_USAGE, "Slurm: the program's and the catalogue's paths may not hold a quote");
    am_buf spec = {0}, script = {0};
    s = array_spec(&spec, todo, n, err);
    if (!s)
        s = am_buf_append(&spec, "", 1, err);
    if (!s)
        s = am_buf_printf(&script, err,
                          "#!/bin/sh\n"
                          "# animesh batch: one array task per creature (animesh batch work reads\n"
                          "# SLURM_ARRAY_TASK_ID); written by animesh batch run --engine slurm.\n"
                          "#SBATCH --job-name=animesh-batch\n"
                          "#SBATCH --array=%s%%%u\n"
                          "#SBATCH --output=%s/slurm-%%A_%%a.out\n"
                          "#SBATCH --ntasks=1\n"
                          "exec '%s' batch work '%s'%s\n",
                          (const char *)spec.data, o->jobs ? o->jobs : 2, dir, o->self, plan->catalog,
                          o->force ? " --force" : "");
    if (!s && !am_string_setf(&result->script, "%s/batch.sbatch", dir))
        s = am_fail_nomem(err, "the Slurm script's path");
    if (!s)
        s = am_write_file_atomic(am_str(&result->script), script.data, script.size, err);
    am_buf_free(&spec);
    am_buf_free(&script);
    if (s || !o->submit)
        return s;
    chmod(am_str(&result->script), 0755);
    /* sbatch --parsable prints "JOBID[;CLUSTER]". */
    int fds[2];
    if (pipe(fds) != 0)
        return am_fail(err, AM_ERR_IO, "cannot run sbatch: pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 1);
        size_t k = 0;
        char **argv = calloc(4 + o->sbatch_arg_count, sizeof *argv);
        if (!argv)
            _exit(127);
        argv[k++] = "sbatch";
        argv[k++] = "--parsable";
        for (size_t i = 0; i < o->sbatch_arg_count; i++)
            argv[k++] = (char *)o->sbatch_args[i];
        argv[k++] = result->script.data;
        argv[k] = NULL;
        execvp("sbatch", argv);
        dprintf(2, "animesh batch: cannot run sbatch: %s\n", strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    char out[256] = "";
    size_t got = 0;
    ssize_t r;
    while (got + 1 < sizeof out && ((r = read(fds[0], out + got, sizeof out - 1 - got)) > 0 || (r < 0 && errno == EINTR)))
        if (r > 0)
            got += (size_t)r;
    out[got] = '\0';
    close(fds[0]);
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return am_fail(err, AM_ERR_IO, "sbatch refused the job array (exit code %d): is Slurm running here?",
                       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    out[strcspn(out, ";\n")] = '\0';
    if (!am_string_set(&result->slurm_job, out))
        return am_fail_nomem(err, "the Slurm job's id");
    char idfile[AM_BATCH_PATH_MAX + 32];
    snprintf(idfile, sizeof idfile, "%s/slurm.jobid", dir);
    return am_write_file_atomic(idfile, out, strlen(out), err);
}

/* True while squeue still lists the job (any of its array tasks). */
static bool slurm_running(const char *job)
{
    int fds[2];
    if (pipe(fds) != 0)
        return false;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 1);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, 2);
        execlp("squeue", "squeue", "-h", "-j", job, "-o", "%i", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[256];
    size_t got = 0;
    ssize_t r;
    while ((r = read(fds[0], buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
        if (r > 0)
            got += (size_t)r;
    close(fds[0]);
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && got > 0;
}

am_status am_batch_wait(am_batch_plan *plan, double timeout_s, am_progress_fn progress, void *user, am_error *err)
{
    char path[AM_BATCH_PATH_MAX];
    if (!am_batch_path(path, sizeof path, plan->catalog, AM_BATCH_RUN_DIR, "slurm.jobid"))
        return am_fail_where(err, AM_ERR_INVALID, plan->catalog, "the catalogue's path is too long");
    uint8_t *data = NULL;
    size_t size = 0;
    am_status s = am_read_file(path, &data, &size, err);
    if (s)
        return am_fail_where(err, AM_ERR_USAGE, path,
                             "no submitted Slurm job (the slurm engine with the submit option)");
    char job[64];
    snprintf(job, sizeof job, "%.*s", (int)(size < 63 ? size : 63), (const char *)data);
    free(data);
    job[strcspn(job, "\n")] = '\0';
    am_batch_run_options o = {.progress = progress, .progress_user = user};
    size_t *all = calloc(plan->job_count ? plan->job_count : 1, sizeof *all);
    if (!all)
        return am_fail_nomem(err, "the job list");
    for (size_t i = 0; i < plan->job_count; i++)
        all[i] = i;
    double t0 = now_s();
    size_t last = (size_t)-1;
    while (slurm_running(job)) {
        size_t done, failed;
        count_finished(plan, all, plan->job_count, NULL, NULL, &done, &failed);
        if (done + failed != last) {
            last = done + failed;
            progress_line(&o, done, failed, plan->job_count, t0);
        }
        if (timeout_s > 0 && now_s() - t0 > timeout_s) {
            free(all);
            return am_fail(err, AM_ERR_IO, "Slurm job %s still running after %.0f s", job, timeout_s);
        }
        struct timespec pause = {0, 500 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    free(all);
    return AM_OK;
}

static am_status run_locked(am_batch_plan *plan, const am_batch_run_options *o, am_batch_run_result *result,
                            am_error *err);

void am_batch_run_result_free(am_batch_run_result *result)
{
    if (!result)
        return;
    am_string_free(&result->script);
    am_string_free(&result->slurm_job);
}

am_status am_batch_run(am_batch_plan *plan, const am_batch_run_options *o, am_batch_run_result *result, am_error *err)
{
    memset(result, 0, sizeof *result);
    result->total = plan->job_count;
    /* One run per catalogue at a time: a second would convert every job again beside it. */
    char dir[AM_BATCH_PATH_MAX];
    int lock = -1;
    am_status s = run_dir(plan, dir, sizeof dir, err);
    if (!s)
        s = am_batch_lock(plan->catalog, dir, "run", &lock, err);
    if (s)
        return s;
    s = run_locked(plan, o, result, err);
    close(lock);
    return s;
}

static am_status run_locked(am_batch_plan *plan, const am_batch_run_options *o, am_batch_run_result *result,
                            am_error *err)
{
    size_t changed = 0;
    am_status s = am_batch_plan_refresh(plan, &changed, err);
    if (s)
        return s;
    if (changed)
        am_progress(o->progress, o->progress_user, "%zu job%s changed since planning", changed, changed == 1 ? "" : "s");
    size_t *todo = NULL, n = 0;
    if ((s = pick_jobs(plan, o, &todo, &n, err)))
        return s;
    if (o->engine != AM_BATCH_ENGINE_SLURM) /* Slurm's array keeps the plan's order: short ranges */
        order_largest_first(plan, todo, n);
    result->todo = n;
    am_progress(o->progress, o->progress_user, "%zu of %zu jobs to run (%s)", n, plan->job_count,
                o->engine == AM_BATCH_ENGINE_LOCAL ? "local" : o->engine == AM_BATCH_ENGINE_PARALLEL ? "GNU parallel"
                                                                                                      : "Slurm");
    if (n && o->engine == AM_BATCH_ENGINE_LOCAL)
        s = run_local(plan, o, todo, n, &result->killed, err);
    else if (n && o->engine == AM_BATCH_ENGINE_PARALLEL)
        s = run_parallel(plan, o, todo, n, &result->killed, err);
    else if (n && o->engine == AM_BATCH_ENGINE_SLURM)
        s = run_slurm(plan, o, todo, n, result, err);
    if (!s && o->engine != AM_BATCH_ENGINE_SLURM)
        count_finished(plan, todo, n, NULL, NULL, &result->done, &result->failed);
    free(todo);
    return s;
}
