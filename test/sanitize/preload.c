/*
 * preload.c - what the sanitizer runtimes need inside an uninstrumented server
 *
 * scripts/sanitize.sh preloads this library into the postgres binary right
 * after the ASan runtime; without it neither runtime works there.
 *
 * ASan has to start before any other constructor.  glibc runs the
 * constructors of preloaded libraries after those of the program's own
 * dependencies, so the runtime would start lazily on the first malloc().  For
 * postgres that malloc() is inside bindtextdomain(), called by libgpg-error's
 * constructor while glibc holds its gettext lock; ASan's start-up calls
 * dlerror(), which translates its message under the same lock, and the process
 * hangs before main().  Linked with -z initfirst, the constructor below runs
 * before all others, while no lock is held.
 *
 * UBSan has to get its options from here.  gcc's UBSan runtime, loaded with
 * idgen.so, starts at its first report and reads UBSAN_OPTIONS then from
 * /proc/self/environ, where postgres has long since written its process title
 * over the environment; so it would neither abort nor print a stack.  It asks
 * __ubsan_default_options() as well, through the dynamic linker, and this
 * definition comes before the runtime's own empty one.
 */

extern void __asan_init(void);
extern const char *__ubsan_default_options(void);

static void __attribute__((constructor))
start_asan_first(void)
{
	__asan_init();
}

const char *
__ubsan_default_options(void)
{
	return "print_stacktrace=1:halt_on_error=1:abort_on_error=1";
}
