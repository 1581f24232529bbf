/* Runs one AVX2 instruction: a Westmere has no AVX, so under the wsm CPU
 * model (QEMU's Westmere) it dies of SIGILL, under `--qemu-cpu max` it
 * exits 0 (tests/capture/capture_test.sh, docs/CAPTURE.md "The CPU the
 * program sees"). */
int main(void)
{
    __asm__ volatile("vpaddd %%ymm0, %%ymm0, %%ymm0" ::: "xmm0");
    return 0;
}
