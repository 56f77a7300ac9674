/* empty.c — the start-up floor for the bench: a program that does nothing,
 * linked against every library oacheck links (mk/bench.am keeps them all
 * with --no-as-needed), so that the dynamic loader's work is the same and
 * oacheck's own start-up is what the ratio shows. */
int main(void)
{
  return 0;
}
