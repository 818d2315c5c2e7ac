/*
 * tools/bench scaling's measure of how far apart two CPUs are: one cache
 * line handed back and forth between a thread on each, the median
 * nanoseconds of a round trip over blocks of them. Threads that share
 * their frames and results pay about this for each line that crosses (a
 * shared VM's CPUs may be near at one minute and far the next).
 *   line_trip CPU_A CPU_B   prints: NS
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TRIPS  20000u /* a block */
#define BLOCKS 15u

static _Alignas(64) atomic_uint turn;

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set); /* (unpinned if refused) */
}

static void *other(void *arg)
{
	pin(*(const int *)arg);
	for (unsigned i = 0; i < TRIPS * BLOCKS; i++) {
		while (atomic_load_explicit(&turn, memory_order_acquire) != 2 * i + 1)
			;
		atomic_store_explicit(&turn, 2 * i + 2, memory_order_release);
	}
	return NULL;
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: line_trip CPU_A CPU_B\n");
		return 2;
	}
	int a = atoi(argv[1]), b = atoi(argv[2]);
	pthread_t th;
	pin(a);
	if (pthread_create(&th, NULL, other, &b) != 0)
		return 1;
	double block[BLOCKS];
	for (unsigned k = 0; k < BLOCKS; k++) {
		double t0 = now_ns();
		for (unsigned i = k * TRIPS; i < (k + 1) * TRIPS; i++) {
			atomic_store_explicit(&turn, 2 * i + 1, memory_order_release);
			while (atomic_load_explicit(&turn, memory_order_acquire) != 2 * i + 2)
				;
		}
		block[k] = (now_ns() - t0) / TRIPS;
	}
	pthread_join(th, NULL);
	qsort(block, BLOCKS, sizeof(block[0]), by_value);
	printf("%.0f\n", block[BLOCKS / 2]);
	return 0;
}
