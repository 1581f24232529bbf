/* The libpfm-4 face's public headers each compile alone (header_*.c include
 * exactly one header first); this runner just links them. */
int header_pfmlib_ok(void);
int header_pfmlib_perf_event_ok(void);
int header_perf_event_ok(void);
int header_own_perf_event_ok(void);

int main(void)
{
    return header_pfmlib_ok() + header_pfmlib_perf_event_ok() + header_perf_event_ok() +
                   header_own_perf_event_ok() == 4 ? 0 : 1;
}
