/*
 * bench_spawn.c - run one command and print its wall time, CPU time and peak
 * RSS: "<wall s> <cpu s> <peak rss bytes> <exit status>".
 *
 * Why a separate program: Linux reports in a child's ru_maxrss the peak RSS
 * of the memory image it replaced at exec. A child spawned by the Python
 * benchmark driver would carry the driver's own peak; this small process
 * forks the measured command itself, so the figure is the command's own.
 * Standard output of the command goes to /dev/null.
 *
 *   bench_spawn CMD [ARG...]
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_spawn CMD [ARG...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench_spawn: fork");
        return 2;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 1);
        execvp(argv[1], argv + 1);
        perror("bench_spawn: exec");
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("bench_spawn: wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                 (double)ru.ru_stime.tv_usec / 1e6;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    printf("%.6f %.6f %lld %d\n", wall, cpu, (long long)ru.ru_maxrss * 1024, code);
    return 0;
}
