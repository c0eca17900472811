/* SPDX-License-Identifier: ISC */
/* The floor under fabtune's offline inventory: only the files it cannot avoid reading (each
 * port's gids/, counters/ and hw_counters/), read as fabtune reads them (one directory
 * handle, then openat/read/close per file) by the least code there is. Prints the files and
 * the median and fastest of RUNS passes, with THREADS threads sharing out the ports.
 *   read_floor SYSROOT RUNS THREADS */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_DIRS 4096

static char *dirs[MAX_DIRS];
static int n_dirs, n_threads;
static long files;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static long read_dir(const char *path)
{
    char buf[64];
    long n = 0;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_type != DT_REG)
            continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
            continue;
        if (read(fd, buf, sizeof(buf)) >= 0)
            n++;
        close(fd);
    }
    closedir(d);
    return n;
}

static void *worker(void *arg)
{
    long t = (long)arg, n = 0;
    for (int i = (int)t; i < n_dirs; i += n_threads)
        n += read_dir(dirs[i]);
    return (void *)n;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void add_port_dirs(const char *root)
{
    static const char *const kinds[] = { "gids", "counters", "hw_counters" };
    char path[4096];
    snprintf(path, sizeof(path), "%s/class/infiniband", root);
    DIR *ib = opendir(path);
    struct dirent *dev;
    while (ib && (dev = readdir(ib))) {
        if (dev->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", root, dev->d_name);
        DIR *ports = opendir(path);
        struct dirent *port;
        while (ports && (port = readdir(ports))) {
            if (port->d_name[0] == '.')
                continue;
            for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && n_dirs < MAX_DIRS; k++)
                if (asprintf(&dirs[n_dirs], "%s/class/infiniband/%s/ports/%s/%s", root,
                             dev->d_name, port->d_name, kinds[k]) > 0)
                    n_dirs++;
        }
        if (ports)
            closedir(ports);
    }
    if (ib)
        closedir(ib);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: read_floor SYSROOT RUNS THREADS\n");
        return 2;
    }
    int runs = atoi(argv[2]);
    n_threads = atoi(argv[3]);
    if (runs < 1 || n_threads < 1 || n_threads > 64)
        return 2;
    add_port_dirs(argv[1]);
    double *ms = calloc((size_t)runs, sizeof(*ms));
    for (int r = 0; r < runs; r++) {
        pthread_t th[64];
        double t0 = now_ms();
        for (long t = 1; t < n_threads; t++)
            pthread_create(&th[t], NULL, worker, (void *)t);
        long n = (long)worker((void *)0);
        for (int t = 1; t < n_threads; t++) {
            void *k;
            pthread_join(th[t], &k);
            n += (long)k;
        }
        ms[r] = now_ms() - t0;
        files = n;
    }
    qsort(ms, (size_t)runs, sizeof(*ms), cmp);
    printf("%ld %.2f %.2f\n", files, ms[runs / 2], ms[0]);
    free(ms);
    return 0;
}
