/* native_chain.c — three functions calling each other, chain_a -> chain_b ->
 * chain_c, each with a real frame (locals on the stack, work after the call so
 * no call is a tail call), for test_native_unwind. Built twice into shared
 * objects (Makefile): with frame pointers, and with -fomit-frame-pointer
 * -fasynchronous-unwind-tables, where only the DWARF CFI finds the callers.
 * mode 0: chain_c raises SIGUSR1; mode 1: it spins until *stop is set (by a
 * profiling timer's handler). */
#include <signal.h>

int chain_a(volatile int *stop, int mode);
int chain_b(volatile int *stop, int mode);
int chain_c(volatile int *stop, int mode);

__attribute__((noinline)) int chain_c(volatile int *stop, int mode)
{
    volatile long work[24];
    for (int i = 0; i < 24; i++)
        work[i] = i * (mode + 1);
    if (mode == 0)
        raise(SIGUSR1);
    else
        while (!*stop)
            work[(unsigned)work[1] % 24]++;
    return (int)work[5];
}

__attribute__((noinline)) int chain_b(volatile int *stop, int mode)
{
    volatile long work[40];
    for (int i = 0; i < 40; i++)
        work[i] = i ^ mode;
    int r = chain_c(stop, mode);
    return r + (int)work[7];
}

__attribute__((noinline)) int chain_a(volatile int *stop, int mode)
{
    volatile char work[200];
    for (int i = 0; i < 200; i++)
        work[i] = (char)(i + mode);
    int r = chain_b(stop, mode);
    return r + work[99];
}
