# long_insns.awk -v cpu=CPU -v th=THREADS -v seed=S [-v most=N]: a text
# trace of 400 instructions on random threads, one in five with up to `most`
# (default 300) accesses (an INSN record and its MEM records: beyond a
# model input's 64, so in parts), markers between them: the input of
# annotate_parts.sh.
BEGIN {
  srand(seed); isa = (cpu == "ita2" || cpu == "mont") ? "ia64" : "x86_64"; len = isa == "ia64" ? 0 : 4;
  printf "pmusim-trace 2\nisa %s\ncpu %s\nthreads %d\nflags 0x0\n", isa, cpu, th;
  c = 0; nr = 0;
  for (i = 0; i < 400; i++) {
    t = int(rand() * th); c += int(rand() * 3);
    n = rand() < 0.2 ? int(rand() * (most ? most : 300)) : int(rand() * 3);
    ip = 4194304 + 16 * int(rand() * 64) + 65536 * t;
    a = 268435456 + 64 * int(rand() * 100000);
    if (n > 0) {
      printf "%d %d insn ip=0x%x len=%d plm=3 mem=%s addr=0x%x size=8\n", c, t, ip, len, (rand()<0.5?"ld":"st"), a; nr++;
      for (j = 1; j < n; j++) { printf "%d %d mem mem=%s addr=0x%x size=8\n", c, t, (rand()<0.5?"ld":"st"), a + 64 * j; nr++ }
    } else { printf "%d %d insn ip=0x%x len=%d plm=3\n", c, t, ip, len; nr++ }
    if (rand() < 0.02) { printf "%d %d marker m%d\n", c, t, i; nr++ }
  }
  printf "end %d\n", nr;
}
