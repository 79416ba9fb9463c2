/* test_options.c — the agent option parser (src/options/): every
 * option with every accepted value and its limits, the defaults, and every
 * kind of bad value, whose message must be one line that names the option
 * and what is accepted. */
#include "harness.h"

#include "options/options.h"

#include <limits.h>

#define PID 4242L

static agent_options opts;
static char err[1024];

/* Parses text, which must be accepted. */
static bool parse_ok(const char *text, const char *file, int line)
{
    jp_status st = options_parse(text, PID, &opts, err, sizeof err);
    if (!th_check(st == JP_OK, file, line, "options_parse accepts the text")) {
        fprintf(stderr, "    text: \"%s\"\n    error: %s\n", text ? text : "(null)", err);
        return false;
    }
    th_check(err[0] == '\0', file, line, "no error message on success");
    return true;
}
#define PARSE_OK(text) parse_ok((text), __FILE__, __LINE__)

/* Parses text, which must be refused with a single-line message containing
 * every one of the (up to three, NULL = unused) fragments. */
static void parse_bad(const char *text, const char *f1, const char *f2, const char *f3, const char *file, int line)
{
    jp_status st = options_parse(text, PID, &opts, err, sizeof err);
    if (!th_check(st == JP_ERR_ARG, file, line, "options_parse refuses the text with JP_ERR_ARG")) {
        fprintf(stderr, "    text: \"%.200s\" (status %d)\n", text, (int)st);
        return;
    }
    th_check(err[0] != '\0', file, line, "error message not empty");
    if (!th_check(strchr(err, '\n') == NULL && strchr(err, '\r') == NULL, file, line, "error message is one line"))
        fprintf(stderr, "    text: \"%.200s\"\n    error: %s\n", text, err);
    const char *frags[3] = { f1, f2, f3 };
    for (int i = 0; i < 3; i++) {
        if (frags[i] && !th_check(strstr(err, frags[i]) != NULL, file, line, "error message names what it should"))
            fprintf(stderr, "    text: \"%.200s\"\n    error: %s\n    lacks: %s\n", text, err, frags[i]);
    }
}
#define PARSE_BAD(text, f1, f2) parse_bad((text), (f1), (f2), NULL, __FILE__, __LINE__)
#define PARSE_BAD3(text, f1, f2, f3) parse_bad((text), (f1), (f2), (f3), __FILE__, __LINE__)

static void check_defaults(const char *text)
{
    if (!PARSE_OK(text))
        return;
    CHECK(!opts.help);
    CHECK_EQ_INT(opts.cpu, OPTIONS_CPU_SAMPLES);
    CHECK(!opts.monitor);
    CHECK_EQ_INT(opts.interval_ms, 10);
    CHECK_EQ_INT(opts.depth, 4);
    CHECK_EQ_INT(opts.format, 'a');
    CHECK(opts.cutoff == 0.0001);
    CHECK(opts.lineno);
    CHECK(!opts.thread);
    CHECK(opts.doe);
    CHECK(opts.verbose);
    CHECK(opts.force);
    CHECK_EQ_STR(opts.file, "java.hprof.txt");
}

static void test_defaults(void)
{
    check_defaults(NULL);
    check_defaults("");
    check_defaults(",");
    check_defaults(",,,");

    /* the binary format changes the default file name only */
    if (PARSE_OK("format=b")) {
        CHECK_EQ_INT(opts.format, 'b');
        CHECK_EQ_STR(opts.file, "java.hprof");
        CHECK_EQ_INT(opts.cpu, OPTIONS_CPU_SAMPLES);
    }
    if (PARSE_OK("format=a")) {
        CHECK_EQ_INT(opts.format, 'a');
        CHECK_EQ_STR(opts.file, "java.hprof.txt");
    }
    /* a parse starts from the defaults, whatever the struct held before */
    memset(&opts, 0x5a, sizeof opts);
    check_defaults("");
}

static void test_cpu_and_monitor(void)
{
    if (PARSE_OK("cpu=samples")) {
        CHECK_EQ_INT(opts.cpu, OPTIONS_CPU_SAMPLES);
        CHECK(!opts.monitor);
    }
    if (PARSE_OK("cpu=y"))
        CHECK_EQ_INT(opts.cpu, OPTIONS_CPU_SAMPLES);
    /* naming monitor alone turns the default cpu=samples off */
    if (PARSE_OK("monitor=y")) {
        CHECK_EQ_INT(opts.cpu, OPTIONS_CPU_OFF);
        CHECK(opts.monitor);
        CHECK_EQ_STR(opts.file, "java.hprof.txt");
    }
    if (PARSE_OK("monitor=y,cpu=samples")) {
        CHECK_EQ_INT(opts.cpu, OPTIONS_CPU_SAMPLES);
        CHECK(opts.monitor);
    }
    if (PARSE_OK("cpu=y,monitor=y")) {
        CHECK_EQ_INT(opts.cpu, OPTIONS_CPU_SAMPLES);
        CHECK(opts.monitor);
    }
    if (PARSE_OK("cpu=samples,monitor=n")) {
        CHECK_EQ_INT(opts.cpu, OPTIONS_CPU_SAMPLES);
        CHECK(!opts.monitor);
    }
    if (PARSE_OK("monitor=y,format=a"))
        CHECK(opts.monitor);
    if (PARSE_OK("cpu=samples,format=b")) {
        CHECK_EQ_INT(opts.format, 'b');
        CHECK_EQ_STR(opts.file, "java.hprof");
    }
    /* an option given twice is refused, quoting both: the last would win silently */
    PARSE_BAD3("monitor=y,monitor=n,cpu=y", "monitor= given twice", "(monitor=y, then monitor=n)", "once");

    /* nothing left to profile */
    PARSE_BAD("monitor=n", "monitor", "cpu=samples");
    /* the binary format carries monitors, wall-clock samples and CPU times (records of jvmprof's own) */
    if (PARSE_OK("monitor=y,format=b"))
        CHECK(opts.monitor && opts.format == 'b');
    if (PARSE_OK("cpu=samples,monitor=y,format=b"))
        CHECK(opts.monitor && opts.cpu == OPTIONS_CPU_SAMPLES);
    if (PARSE_OK("format=b,cpu=times"))
        CHECK(opts.cpu == OPTIONS_CPU_TIMES && opts.format == 'b');

    PARSE_BAD("cpu=fast", "cpu=fast", "samples|times|y");
    PARSE_BAD("cpu=", "cpu=", "samples|times|y");
    PARSE_BAD("cpu=Samples", "cpu=Samples", "samples|times|y");
    PARSE_BAD("cpu=n", "cpu=n", "samples|times|y");
    PARSE_BAD("monitor=maybe", "monitor=maybe", "y|n");
    PARSE_BAD("monitor=", "monitor=", "y|n");
    PARSE_BAD("format=x", "format=x", "a|b");
    PARSE_BAD("format=", "format=", "a|b");
    PARSE_BAD("format=ab", "format=ab", "a|b");
    PARSE_BAD("format=A", "format=A", "a|b");
}

static void test_bool_options(void)
{
    static const char *const names[] = { "monitor", "lineno", "thread", "doe", "verbose", "force" };
    static const char *const bad_values[] = { "yes", "no", "Y", "N", "1", "0", "true", "", "yy", " y" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char text[128], frag[64];
        for (int v = 0; v < 2; v++) {
            /* cpu=samples keeps monitor=n from being "nothing to profile" */
            snprintf(text, sizeof text, "cpu=samples,%s=%s", names[i], v ? "y" : "n");
            if (!PARSE_OK(text))
                continue;
            bool got = strcmp(names[i], "monitor") == 0   ? opts.monitor
                       : strcmp(names[i], "lineno") == 0  ? opts.lineno
                       : strcmp(names[i], "thread") == 0  ? opts.thread
                       : strcmp(names[i], "doe") == 0     ? opts.doe
                       : strcmp(names[i], "verbose") == 0 ? opts.verbose
                                                          : opts.force;
            if (!CHECK_EQ_INT(got, v))
                fprintf(stderr, "    text: %s\n", text);
        }
        for (size_t b = 0; b < sizeof bad_values / sizeof bad_values[0]; b++) {
            snprintf(text, sizeof text, "%s=%s", names[i], bad_values[b]);
            snprintf(frag, sizeof frag, "%s=%s:", names[i], bad_values[b]);
            PARSE_BAD(text, frag, "y|n");
        }
        PARSE_BAD(names[i], names[i], "y|n"); /* no '=' */
    }
}

static void test_help(void)
{
    if (PARSE_OK("help"))
        CHECK(opts.help);
    if (PARSE_OK("cpu=samples,help,depth=8")) {
        CHECK(opts.help);
        CHECK_EQ_INT(opts.depth, 8);
    }
    if (PARSE_OK("depth=8"))
        CHECK(!opts.help);
    /* help takes no value */
    PARSE_BAD("help=y", "help=y", "takes no value");

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ASSERT(f != NULL);
    options_print_help(f);
    fclose(f);
    static const char *const must[] = { "help", "cpu=samples|times|y", "monitor=y|n", "format=a|b", "file=<file>",
                                        "depth=0..2048", "interval=1..60000", "cutoff=0..1", "lineno=y|n",
                                        "thread=y|n", "doe=y|n", "force=y|n", "verbose=y|n", "heap=", "net=",
                                        "msa=" };
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        if (!CHECK(strstr(text, must[i]) != NULL))
            fprintf(stderr, "    help lacks %s\n", must[i]);
    /* every line fits a terminal */
    size_t longest = 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        if (n > longest)
            longest = n;
        p += n + (p[n] == '\n');
    }
    CHECK(longest <= 120);
    CHECK(len > 0 && text[len - 1] == '\n');
    free(text);
}

static void test_interval(void)
{
    if (PARSE_OK("interval=1"))
        CHECK_EQ_INT(opts.interval_ms, 1);
    if (PARSE_OK("interval=60000"))
        CHECK_EQ_INT(opts.interval_ms, 60000);
    if (PARSE_OK("interval=20"))
        CHECK_EQ_INT(opts.interval_ms, 20);
    if (PARSE_OK("interval=007"))
        CHECK_EQ_INT(opts.interval_ms, 7);
    static const char *const bad[] = { "0",   "60001", "-1", "-0", "+5",  "abc", "",      "1.5",
                                       "1e3", "0x10",  "5ms", " 5", "5 ", "99999999999999999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[64], frag[64];
        snprintf(text, sizeof text, "interval=%s", bad[i]);
        snprintf(frag, sizeof frag, "interval=%s:", bad[i]);
        PARSE_BAD(text, frag, "1..60000");
    }
    PARSE_BAD("interval", "interval", "1..60000");
}

/* cstack=: native frames by default on event=cpu (kernel frames cost the perf_event clock there), the
 * kernel's too with another event= (a perf event already); what is given wins. */
static void test_cstack_default(void)
{
    static const struct { const char *text; options_cstack cstack; } cases[] = {
        { "cpu=samples", OPTIONS_CSTACK_NATIVE },
        { "cpu=samples,event=cpu", OPTIONS_CSTACK_NATIVE },
        { "wall=10", OPTIONS_CSTACK_NATIVE },
        { "cpu=samples,event=cache-misses", OPTIONS_CSTACK_MIXED },
        { "cpu=samples,event=sched:sched_switch", OPTIONS_CSTACK_MIXED },
        { "cpu=samples,cstack=mixed", OPTIONS_CSTACK_MIXED },
        { "cpu=samples,cstack=java,event=page-faults", OPTIONS_CSTACK_JAVA },
        { "cpu=samples,event=page-faults,cstack=native", OPTIONS_CSTACK_NATIVE },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (PARSE_OK(cases[i].text) && !CHECK_EQ_INT(opts.cstack, cases[i].cstack))
            fprintf(stderr, "    text: %s\n", cases[i].text);
}

static void test_depth(void)
{
    if (PARSE_OK("depth=0"))
        CHECK_EQ_INT(opts.depth, 0);
    if (PARSE_OK("depth=2048"))
        CHECK_EQ_INT(opts.depth, 2048);
    if (PARSE_OK("depth=1"))
        CHECK_EQ_INT(opts.depth, 1);
    PARSE_BAD3("depth=5,depth=7", "depth= given twice", "(depth=5, then depth=7)", "give each option once");
    static const char *const bad[] = { "2049", "-1", "+1", "abc", "", "4k", "1.0", "0x10", " 4", "\t4",
                                       "18446744073709551617", "4294967296" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[64], frag[64];
        snprintf(text, sizeof text, "depth=%s", bad[i]);
        snprintf(frag, sizeof frag, "depth=%s:", bad[i]);
        for (char *c = frag; *c; c++) /* control characters are shown as '?' */
            if (*c == '\t')
                *c = '?';
        PARSE_BAD(text, frag, "0..2048");
    }
    PARSE_BAD("depth", "depth", "0..2048");
}

static void test_cutoff(void)
{
    static const struct { const char *text; double v; } good[] = {
        { "0", 0.0 }, { "1", 1.0 }, { "0.5", 0.5 }, { "0.0001", 0.0001 }, { "1e-3", 0.001 }, { ".25", 0.25 },
        { "1.0", 1.0 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "cutoff=%s", good[i].text);
        if (PARSE_OK(text))
            if (!CHECK(opts.cutoff == good[i].v))
                fprintf(stderr, "    %s gave %g\n", text, opts.cutoff);
    }
    static const char *const bad[] = { "-0.1", "1.1", "2", "abc", "", "nan", "inf", "-inf", "0.5x", " 0.5",
                                       "1e999", "-1" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[64], frag[64];
        snprintf(text, sizeof text, "cutoff=%s", bad[i]);
        snprintf(frag, sizeof frag, "cutoff=%s:", bad[i]);
        PARSE_BAD(text, frag, "0..1");
    }
    PARSE_BAD("cutoff", "cutoff", "0..1");
}

static void test_file(void)
{
    if (PARSE_OK("file=out.txt"))
        CHECK_EQ_STR(opts.file, "out.txt");
    if (PARSE_OK("file=/tmp/dir/x.hprof,format=b")) /* file= wins over the format's default */
        CHECK_EQ_STR(opts.file, "/tmp/dir/x.hprof");
    if (PARSE_OK("file=app-%p.hprof"))
        CHECK_EQ_STR(opts.file, "app-4242.hprof");
    if (PARSE_OK("file=%p"))
        CHECK_EQ_STR(opts.file, "4242");
    if (PARSE_OK("file=%p%p"))
        CHECK_EQ_STR(opts.file, "42424242");
    if (PARSE_OK("file=100%%.txt"))
        CHECK_EQ_STR(opts.file, "100%.txt");
    if (PARSE_OK("file=%%p"))
        CHECK_EQ_STR(opts.file, "%p");
    if (PARSE_OK("file=%%%p"))
        CHECK_EQ_STR(opts.file, "%4242");
    if (PARSE_OK("file=a%"))  /* a lone % is kept */
        CHECK_EQ_STR(opts.file, "a%");
    if (PARSE_OK("file=a%x")) /* so is an unknown escape */
        CHECK_EQ_STR(opts.file, "a%x");
    if (PARSE_OK("file=a=b"))  /* only the first '=' separates */
        CHECK_EQ_STR(opts.file, "a=b");
    PARSE_BAD3("file=x,file=y", "file= given twice", "(file=x, then file=y)", NULL);
    /* the pid of the process parsed for */
    if (CHECK(options_parse("file=%p", 1, &opts, err, sizeof err) == JP_OK))
        CHECK_EQ_STR(opts.file, "1");

    PARSE_BAD("file=", "file=", "<path>");
    PARSE_BAD("file", "file", "file=<file>");

    /* the longest path that fits, then one byte more, then far more */
    enum { MAXLEN = OPTIONS_PATH_MAX - 1 };
    static char text[3 * OPTIONS_PATH_MAX];
    char frag[64];
    snprintf(frag, sizeof frag, "%d", MAXLEN);
    strcpy(text, "file=");
    memset(text + 5, 'f', MAXLEN);
    text[5 + MAXLEN] = '\0';
    if (PARSE_OK(text))
        CHECK_EQ_INT(strlen(opts.file), MAXLEN);
    text[5 + MAXLEN] = 'f';
    text[5 + MAXLEN + 1] = '\0';
    PARSE_BAD3(text, "file", "too long", frag);
    /* %p expansion pushing it over */
    memset(text + 5, 'f', MAXLEN - 2);
    strcpy(text + 5 + MAXLEN - 2, "%p");
    PARSE_BAD3(text, "file", "too long", frag);
    memset(text + 5, 'f', MAXLEN - 4);
    strcpy(text + 5 + MAXLEN - 4, "%p");
    if (PARSE_OK(text))
        CHECK_EQ_INT(strlen(opts.file), MAXLEN);
    memset(text + 5, 'f', sizeof text - 6);
    text[sizeof text - 1] = '\0';
    PARSE_BAD(text, "file", "too long");
    /* a long option of another name names that option */
    memcpy(text, "depth=", 6);
    PARSE_BAD(text, "depth", "too long");
}

static void test_cpu_times(void)
{
    if (PARSE_OK("cpu=times")) {
        CHECK(opts.cpu == OPTIONS_CPU_TIMES);
        CHECK(!options_given(&opts, OPTIONS_ID_TINY)); /* unset: the straight-line leaves only */
        CHECK_EQ_STR(opts.include, "");
        CHECK_EQ_STR(opts.exclude, "");
        CHECK(!opts.monitor);
    }
    if (PARSE_OK("cpu=times,monitor=y,include=com/example/:org.acme.P$1,exclude=com.example.gen.,tiny=0")) {
        CHECK_EQ_STR(opts.include, "com.example.:org.acme.P$1"); /* '/' is read as '.' */
        CHECK_EQ_STR(opts.exclude, "com.example.gen.");
        CHECK_EQ_INT(opts.tiny, 0);
        CHECK(opts.monitor);
    }
    if (PARSE_OK("cpu=times,tiny=65535"))
        CHECK_EQ_INT(opts.tiny, 65535);
    if (PARSE_OK("cpu=times,tiny=0"))
        CHECK(options_given(&opts, OPTIONS_ID_TINY) && opts.tiny == 0);
    if (PARSE_OK("cpu=times,format=b"))
        CHECK(opts.format == 'b');
    PARSE_BAD3("include=com.", "include=", "cpu=times", NULL);
    PARSE_BAD3("cpu=samples,exclude=com.", "exclude=", "cpu=times", NULL);
    PARSE_BAD3("monitor=y,tiny=3", "tiny=", "cpu=times", NULL);
    PARSE_BAD3("cpu=times,tiny=65536", "tiny=65536", "0..65535", NULL);
    PARSE_BAD3("cpu=times,tiny=x", "tiny=x", "0..65535", NULL);
    PARSE_BAD3("cpu=times,include=", "include=", "prefixes", NULL);
    PARSE_BAD3("cpu=times,include=:a", "include=:a", "empty prefix at position 1", NULL);
    PARSE_BAD3("cpu=times,include=a:", "include=a:", "empty prefix at position 2", NULL);
    PARSE_BAD3("cpu=times,exclude=a b", "exclude=a b", "' ' at position 2", NULL);
    PARSE_BAD3("cpu=old", "cpu=old", "not available", "cpu=times");
}

static void test_sampler_wall_flame(void)
{
    if (PARSE_OK("")) {
        CHECK(opts.sampler == OPTIONS_SAMPLER_ASYNC);
        CHECK(options_async_sampling(&opts));
        CHECK_EQ_INT(opts.wall_ms, 0);
        CHECK_EQ_STR(opts.flame, "");
        CHECK_EQ_STR(opts.collapsed, "");
    }
    if (PARSE_OK("cpu=samples,sampler=jvmti")) {
        CHECK(opts.sampler == OPTIONS_SAMPLER_JVMTI);
        CHECK(!options_async_sampling(&opts));
    }
    if (PARSE_OK("sampler=async,cpu=samples,flame=f-%p.html,collapsed=c.txt")) {
        CHECK_EQ_STR(opts.flame, "f-4242.html");
        CHECK_EQ_STR(opts.collapsed, "c.txt");
    }
    /* wall= turns the default cpu=samples off, like monitor= */
    if (PARSE_OK("wall=20,flame=w.html")) {
        CHECK_EQ_INT(opts.wall_ms, 20);
        CHECK(opts.cpu == OPTIONS_CPU_OFF);
        CHECK(options_async_sampling(&opts));
    }
    if (PARSE_OK("wall=1,monitor=y,cpu=times")) {
        CHECK(opts.cpu == OPTIONS_CPU_TIMES);
        CHECK(opts.monitor);
    }
    if (PARSE_OK("wall=60000"))
        CHECK_EQ_INT(opts.wall_ms, 60000);
    PARSE_BAD3("wall=0", "wall=0", "1..60000", NULL);
    PARSE_BAD3("wall=60001", "wall=60001", "1..60000", NULL);
    PARSE_BAD3("wall=x", "wall=x", "1..60000", NULL);
    PARSE_BAD3("wall=10,cpu=samples", "wall= with cpu=samples", "use one of them", NULL);
    if (PARSE_OK("wall=10,format=b,monitor=y,cpu=times"))
        CHECK(opts.wall_ms == 10 && opts.format == 'b' && opts.monitor && opts.cpu == OPTIONS_CPU_TIMES);
    PARSE_BAD3("sampler=fast", "sampler=fast", "async|jvmti", NULL);
    PARSE_BAD3("monitor=y,sampler=jvmti", "sampler=", "add cpu=samples", NULL);
    PARSE_BAD3("wall=5,sampler=async", "sampler=", "add cpu=samples", NULL);
    PARSE_BAD3("cpu=samples,sampler=jvmti,flame=x.html", "flame=", "sampler=async", NULL);
    PARSE_BAD3("cpu=times,collapsed=x.txt", "collapsed=", "wall=<ms>", NULL);
    PARSE_BAD3("monitor=y,flame=x.html", "flame=", "cpu=samples", NULL);
    PARSE_BAD3("flame=", "flame=: empty file name", "flame=<path>", NULL);
    PARSE_BAD3("collapsed=", "collapsed=: empty file name", NULL, NULL);
}

static void test_heap(void)
{
    /* heap=dump alone: binary by default, nothing sampled */
    if (PARSE_OK("heap=dump")) {
        CHECK(opts.heap_dump);
        CHECK_EQ_INT(opts.cpu, OPTIONS_CPU_OFF);
        CHECK(!opts.monitor && !opts.wall_ms);
        CHECK_EQ_INT(opts.format, 'b');
        CHECK_EQ_STR(opts.file, "java.hprof");
    }
    if (PARSE_OK("heap=dump,format=a")) {
        CHECK_EQ_INT(opts.format, 'a');
        CHECK_EQ_STR(opts.file, "java.hprof.txt");
    }
    if (PARSE_OK("format=a,heap=dump,file=h-%p-%n.hprof,doe=n")) {
        CHECK_EQ_INT(opts.format, 'a');
        CHECK_EQ_STR(opts.file, "h-4242-%n.hprof");
        CHECK(!opts.doe);
    }
    if (PARSE_OK("cpu=samples"))
        CHECK(!opts.heap_dump);
    PARSE_BAD3("heap=dump,cpu=samples", "heap=dump", "cpu=samples", "separate run");
    PARSE_BAD3("cpu=times,heap=dump", "heap=dump", "cpu=times", "separate run");
    PARSE_BAD3("heap=dump,monitor=y", "heap=dump", "monitor=y", "separate run");
    PARSE_BAD3("heap=dump,wall=10", "heap=dump", "wall=", "separate run");
    PARSE_BAD3("heap=dump,flame=f.html", "flame=", "cpu=samples", NULL);
    /* heap=all: sites and a dump, in one ASCII file */
    if (PARSE_OK("heap=all")) {
        CHECK(opts.heap_sites && opts.heap_dump);
        CHECK_EQ_INT(opts.format, 'a');
    }
    if (PARSE_OK("heap=all,alloc_interval=0,lifetimes=y"))
        CHECK(opts.heap_sites && opts.heap_dump && opts.alloc_interval == 0 && opts.lifetimes);
    PARSE_BAD3("heap=all,format=b", "heap=all", "format=b", "separate runs");
    PARSE_BAD3("heap=all,cpu=samples", "heap=dump", "cpu=samples", "separate run");
    /* heap=sites: sampled, every 512 KiB by default; it combines with the CPU options */
    if (PARSE_OK("heap=sites")) {
        CHECK(opts.heap_sites && !opts.heap_dump);
        CHECK_EQ_INT(opts.cpu, OPTIONS_CPU_OFF);
        CHECK_EQ_INT(opts.alloc_interval, 512 * 1024);
        CHECK_EQ_INT(opts.format, 'a');
    }
    if (PARSE_OK("heap=sites,cpu=samples,alloc_interval=4096"))
        CHECK(opts.heap_sites && opts.cpu == OPTIONS_CPU_SAMPLES && opts.alloc_interval == 4096);
    if (PARSE_OK("heap=sites,alloc_interval=1k"))
        CHECK_EQ_INT(opts.alloc_interval, 1024);
    if (PARSE_OK("heap=sites,alloc_interval=3M"))
        CHECK_EQ_INT(opts.alloc_interval, 3 << 20);
    if (PARSE_OK("heap=sites,alloc_interval=1g"))
        CHECK_EQ_INT(opts.alloc_interval, 1 << 30);
    if (PARSE_OK("heap=sites,alloc_interval=0"))
        CHECK(opts.alloc_interval == 0 && opts.alloc_hook == 's');
    if (PARSE_OK("heap=sites,alloc_interval=0,alloc_hook=bci"))
        CHECK_EQ_INT(opts.alloc_hook, 'b');
    if (PARSE_OK("heap=sites,alloc_interval=0,alloc_hook=sampler"))
        CHECK_EQ_INT(opts.alloc_hook, 's');
    PARSE_BAD3("heap=sites,alloc_hook=bci", "alloc_hook=", "alloc_interval=0", NULL);
    if (PARSE_OK("heap=dump"))
        CHECK(opts.dumper == 'h' && !opts.dumper_named);
    if (PARSE_OK("heap=dump,dumper=hotspot"))
        CHECK_EQ_INT(opts.dumper, 'h');
    if (PARSE_OK("heap=all,dumper=jvmti"))
        CHECK_EQ_INT(opts.dumper, 'j');
    PARSE_BAD3("heap=sites,dumper=hotspot", "dumper=", "heap=dump", NULL);
    PARSE_BAD3("heap=dump,dumper=jcmd", "dumper=jcmd", "bad value", "hotspot|jvmti");
    PARSE_BAD3("heap=sites,alloc_interval=0,alloc_hook=jfr", "alloc_hook=jfr", "bad value", "sampler|bci");
    PARSE_BAD3("heap=sites,alloc_interval=2g", "alloc_interval=2g", "bad value", "0..1g");
    PARSE_BAD3("heap=sites,alloc_interval=1x", "alloc_interval=1x", "bad value", NULL);
    PARSE_BAD3("heap=sites,alloc_interval=k", "alloc_interval=k", "bad value", NULL);
    PARSE_BAD3("heap=sites,alloc_interval=-1", "alloc_interval=-1", "bad value", NULL);
    PARSE_BAD3("alloc_interval=1k", "alloc_interval=", "heap=sites", NULL);
    if (PARSE_OK("heap=sites,lifetimes=y"))
        CHECK(opts.lifetimes);
    if (PARSE_OK("heap=sites"))
        CHECK(!opts.lifetimes);
    PARSE_BAD3("lifetimes=y", "lifetimes=y", "heap=sites", NULL);
    PARSE_BAD3("heap=sites,lifetimes=1", "lifetimes=1", "bad value", "y|n");
    if (PARSE_OK("heap=sites,heap=dump"))
        CHECK(opts.heap_sites && opts.heap_dump && opts.format == 'a');
    /* a typo away: the option or value meant */
    PARSE_BAD3("cpu=samples,dept=4", "dept=4", "unknown option", "(did you mean depth?); accepted");
    PARSE_BAD3("cpu=sample", "cpu=sample", "bad value (did you mean samples?); expected", "samples|times|y");
    PARSE_BAD3("cpu=samples,monitr=y", "monitr=y", "did you mean monitor?", "cpu, monitor");
    PARSE_BAD3("cpu=xyzzy", "cpu=xyzzy", "bad value; expected", NULL);
    PARSE_BAD3("heap=y", "heap=y", "bad value", "dump");
    PARSE_BAD3("heap", "heap", "missing value", "heap=dump");
}

/* Every option given twice is refused (the last would win without a word),
 * but heap=, whose values add up, and help, which only asks for the help. */
static void test_given_twice(void)
{
    PARSE_BAD3("cpu=times,cpu=samples", "cpu= given twice (cpu=times, then cpu=samples)", "give each option once",
               "JVMPROF_OPTIONS");
    PARSE_BAD3("cpu=samples,depth=8,cpu=samples", "cpu= given twice (cpu=samples, then cpu=samples)", NULL, NULL);
    PARSE_BAD3("cpu=y,cpu=samples", "cpu= given twice", NULL, NULL);
    PARSE_BAD3("interval=5,interval=5", "interval= given twice", NULL, NULL);
    PARSE_BAD3("format=a,format=b", "format= given twice (format=a, then format=b)", NULL, NULL);
    PARSE_BAD3("cutoff=0.1,,cutoff=0.2", "cutoff= given twice (cutoff=0.1, then cutoff=0.2)", NULL, NULL);
    PARSE_BAD3("heap=sites,alloc_interval=1k,alloc_interval=2k", "alloc_interval= given twice", NULL, NULL);
    PARSE_BAD3("wall=10,wall=20", "wall= given twice (wall=10, then wall=20)", NULL, NULL);
    PARSE_BAD3("heap=dump,dumper=jvmti,dumper=hotspot", "dumper= given twice", NULL, NULL);
    PARSE_BAD3("cpu=times,include=a.,include=b.", "include= given twice", NULL, NULL);
    /* as JVMPROF_OPTIONS appended to the -agentpath options reaches the parser */
    PARSE_BAD3("cpu=samples,file=a.txt,file=b.txt", "file= given twice (file=a.txt, then file=b.txt)", NULL, NULL);
    /* an option without a value or with a bad one is still named as such */
    PARSE_BAD3("depth=4,depth", "depth: missing value", NULL, NULL);
    /* a long first value is quoted short enough to leave the advice in the message */
    static char text[2 * OPTIONS_PATH_MAX];
    strcpy(text, "file=");
    memset(text + 5, 'f', 3000);
    strcpy(text + 3005, ",file=y");
    PARSE_BAD3(text, "file= given twice", "then file=y)", "give each option once");

    /* heap= adds up: heap=sites with heap=dump is heap=all, as the README says */
    if (PARSE_OK("heap=sites,heap=dump"))
        CHECK(opts.heap_sites && opts.heap_dump && opts.format == 'a');
    if (PARSE_OK("heap=dump,heap=sites,alloc_interval=0"))
        CHECK(opts.heap_sites && opts.heap_dump && opts.alloc_interval == 0);
    if (PARSE_OK("heap=dump,heap=dump"))
        CHECK(opts.heap_dump && !opts.heap_sites);
    if (PARSE_OK("heap=all,heap=sites"))
        CHECK(opts.heap_sites && opts.heap_dump);
    /* help twice still asks for the help */
    if (PARSE_OK("help,help"))
        CHECK(opts.help);
    if (PARSE_OK("help,cpu=samples,help"))
        CHECK(opts.help);
    /* options of different names that look alike are not repeats */
    if (PARSE_OK("heap=sites,alloc_interval=1k,cpu=samples,interval=5"))
        CHECK(opts.interval_ms == 5 && opts.alloc_interval == 1024);
}

/* interval= is the period of cpu=samples (either sampler) and of nothing
 * else: wall= has its own, cpu=times, monitor=y and heap= take no timed
 * samples. Named without cpu=samples it is refused. */
static void test_interval_unused(void)
{
    PARSE_BAD3("wall=10,interval=5", "interval= with wall=", "wall=<ms> is its own period", "drop interval=");
    PARSE_BAD3("interval=5,wall=10,thread=y", "interval= with wall=", "drop interval=", NULL);
    PARSE_BAD3("cpu=times,interval=5", "interval= with cpu=times", "period of cpu=samples", "add cpu=samples");
    PARSE_BAD3("monitor=y,interval=5", "interval= with monitor=y", "add cpu=samples or drop interval=", NULL);
    PARSE_BAD3("heap=sites,interval=5", "interval= with heap=sites", "add cpu=samples or drop interval=", NULL);
    /* cpu=samples is refused with a heap dump: the advice is only to drop interval= */
    PARSE_BAD3("heap=dump,interval=5", "interval= with heap=dump", "drop interval=", NULL);
    CHECK(strstr(err, "add cpu=samples") == NULL);
    PARSE_BAD3("heap=all,interval=5", "interval= with heap=all", "drop interval=", NULL);
    CHECK(strstr(err, "add cpu=samples") == NULL);
    PARSE_BAD3("cpu=times,monitor=y,heap=sites,interval=5", "interval= with cpu=times,monitor=y,heap=sites",
               NULL, NULL);
    PARSE_BAD3("wall=10,monitor=y,interval=5", "interval= with wall=,monitor=y", "wall=<ms>", NULL);
    /* the default interval with those modes is no complaint */
    PARSE_OK("wall=10");
    PARSE_OK("cpu=times,monitor=y");
    /* what uses it: cpu=samples with either sampler, also alongside other modes, and the default cpu=samples */
    if (PARSE_OK("interval=5"))
        CHECK(opts.cpu == OPTIONS_CPU_SAMPLES && opts.interval_ms == 5);
    if (PARSE_OK("cpu=samples,interval=5"))
        CHECK_EQ_INT(opts.interval_ms, 5);
    if (PARSE_OK("cpu=samples,sampler=jvmti,interval=5"))
        CHECK(opts.sampler == OPTIONS_SAMPLER_JVMTI && opts.interval_ms == 5);
    if (PARSE_OK("interval=7,monitor=y,cpu=samples"))
        CHECK(opts.monitor && opts.interval_ms == 7);
    if (PARSE_OK("heap=sites,cpu=y,interval=3"))
        CHECK(opts.heap_sites && opts.interval_ms == 3);
    /* a refusal that says more comes first */
    PARSE_BAD3("wall=10,cpu=samples,interval=5", "wall= with cpu=samples", NULL, NULL);
    PARSE_BAD3("heap=dump,cpu=samples,interval=5", "heap=dump with cpu=samples", NULL, NULL);
}

/* heap=dump alone writes nothing but the dump, which has no use for depth=,
 * lineno=, thread= or cutoff=; with heap=sites the report uses them. */
static void test_heap_dump_alone(void)
{
    PARSE_BAD3("heap=dump,depth=8", "depth= with heap=dump alone", "whole stack", "drop depth=");
    PARSE_BAD3("depth=8,heap=dump,format=a", "depth= with heap=dump alone", "add heap=sites", NULL);
    PARSE_BAD3("heap=dump,lineno=n", "lineno= with heap=dump alone", "line numbers", "drop lineno=");
    PARSE_BAD3("heap=dump,lineno=y", "lineno= with heap=dump alone", NULL, NULL);
    PARSE_BAD3("heap=dump,thread=y", "thread= with heap=dump alone", "drop thread=", NULL);
    PARSE_BAD3("heap=dump,cutoff=0", "cutoff= with heap=dump alone", "drop cutoff=", NULL);
    PARSE_BAD3("heap=dump,dumper=jvmti,depth=2", "depth= with heap=dump alone", NULL, NULL);
    /* pprof= and jfr= are made from a report: heap=dump alone has none (they were accepted and never written) */
    PARSE_BAD3("heap=dump,pprof=p.pb.gz", "pprof= with heap=dump alone", "of which it has none", "drop pprof=");
    PARSE_BAD3("heap=dump,jfr=r.jfr", "jfr= with heap=dump alone", "add heap=sites", NULL);
    if (PARSE_OK("heap=all,pprof=p.pb.gz,jfr=r.jfr"))
        CHECK_EQ_STR(opts.jfr, "r.jfr");
    /* what the dump does use */
    PARSE_OK("heap=dump,format=a,file=h-%n.txt,doe=n,verbose=n,force=n,dumper=jvmti");
    /* with heap=sites (heap=all) the SITES report uses all four */
    if (PARSE_OK("heap=dump,heap=sites,depth=8,lineno=n,thread=y,cutoff=0"))
        CHECK(opts.depth == 8 && !opts.lineno && opts.thread && opts.cutoff == 0.0);
    if (PARSE_OK("heap=all,depth=8,cutoff=0.01"))
        CHECK_EQ_INT(opts.depth, 8);
    if (PARSE_OK("heap=sites,depth=8,thread=y"))
        CHECK(opts.depth == 8 && opts.thread);
}

static void test_net(void)
{
    if (PARSE_OK("net=localhost:9000"))
        CHECK_EQ_STR(opts.net, "localhost:9000");
    if (PARSE_OK("trace=thread,net=127.0.0.1:1")) /* with any mode, trace= alone too */
        CHECK_EQ_STR(opts.net, "127.0.0.1:1");
    if (PARSE_OK("net=[::1]:65535"))
        CHECK_EQ_STR(opts.net, "[::1]:65535");
    static const char *const bad[] = { "net=localhost", "net=:9000", "net=host:0", "net=host:65536", "net=host:x",
                                       "net=ho st:1", "net=[::1:1", "net=a/b:1" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        PARSE_BAD3(bad[i], bad[i], "expected net=HOST:PORT", "1-65535");
    PARSE_BAD3("net", "net", "missing value", "net=<host>:<port>");
}

static void test_later_and_unknown(void)
{
    PARSE_BAD3("msa=y", "msa=y", "not available", "cpu=samples");
    PARSE_BAD3("cpu=old", "cpu=old", "not available", "cpu=samples");
    /* a later-issue option without a value is refused as not available too */
    PARSE_BAD3("msa", "msa", "not available", "cpu=samples");

    static const char *const unknown[] = { "bogus=1", "bogus", "CPU=samples", "=5", "=", "gc_okay=y",
                                           "cpu =samples", "depth =4" };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        char frag[64];
        snprintf(frag, sizeof frag, "'%s'", unknown[i]);
        PARSE_BAD3(unknown[i], frag, "unknown option", "cpu, monitor");
    }
    /* the first bad option stops the parse */
    PARSE_BAD("depth=8,bogus=1,depth=x", "bogus", "accepted");
    /* a value with a line break still gives a one-line message */
    PARSE_BAD("depth=1\n2", "depth=", "0..2048");
    PARSE_BAD("bogus\n=1", "unknown option", "accepted");
}

static void test_small_error_buffer(void)
{
    char small[8];
    memset(small, 'x', sizeof small);
    CHECK_EQ_INT(options_parse("depth=abcdefghijklmnop", PID, &opts, small, sizeof small), JP_ERR_ARG);
    CHECK(memchr(small, '\0', sizeof small) != NULL);
}

/* The table: every row's default is a value its own parser accepts, and
 * naming it changes nothing in its field; a row without a default leaves its
 * field zero; the help's default column is the table's. */
static void test_table_defaults(void)
{
    /* what makes naming the option alone acceptable (it has no use alone otherwise) */
    static const struct { options_id id; const char *context; } contexts[] = {
        { OPTIONS_ID_MONITOR, "cpu=samples" },     { OPTIONS_ID_TINY, "cpu=times" },
        { OPTIONS_ID_DUMPER, "heap=dump" },        { OPTIONS_ID_LIFETIMES, "heap=sites" },
        { OPTIONS_ID_ALLOC_INTERVAL, "heap=sites" }, { OPTIONS_ID_ALLOC_HOOK, "heap=sites,alloc_interval=0" },
        { OPTIONS_ID_TRACEFILE, "trace=thread" },  { OPTIONS_ID_TRACELIMIT, "trace=thread" },
        { OPTIONS_ID_MINTIME, "trace=exec" },       { OPTIONS_ID_RECEIVERS, "trace=exec" }, { OPTIONS_ID_VTHREADS, "trace=thread" },
        { OPTIONS_ID_PLUGIN, "trace=exec" },        { OPTIONS_ID_MAXAGE, "record=y" }, { OPTIONS_ID_MAXSIZE, "record=y" },
        { OPTIONS_ID_TRIGGER_INTERVAL, "record=y,trigger=oom" }, { OPTIONS_ID_CPU_ABOVE, "record=y,trigger=cpu" },
        { OPTIONS_ID_CPU_FOR, "record=y,trigger=cpu" },
        { OPTIONS_ID_UPLOAD_INTERVAL, "upload=http://h" }, { OPTIONS_ID_UPLOAD_QUEUE, "upload=http://h" },
    };
    static agent_options plain, with_context, named;
    ASSERT(PARSE_OK(""));
    plain = opts;
    CHECK_EQ_INT(plain.given, 0);
    for (size_t i = 0; i < OPTIONS_ID_COUNT; i++) {
        const options_def *d = &options_defs[i];
        CHECK(options_find(d->name, strlen(d->name)) == d);
        CHECK(options_owner_name(d->owner)[0] != '?');
        CHECK(d->what && d->what[0] && d->values);
        if (!CHECK(d->deflt || d->unset))
            fprintf(stderr, "    %s= shows no default in help\n", d->name);
        if (d->deflt && d->kind != OPTIONS_KIND_LATER) {
            CHECK_EQ_STR(options_default_text(d), d->deflt);
        }
        if (d->at == 0) /* heap= (two fields), msa= */
            continue;
        const char *field = (const char *)&plain + d->at - 1;
        if (!d->deflt) {
            static const char zero[OPTIONS_PATH_MAX];
            if (i != OPTIONS_ID_FILE && !CHECK(memcmp(field, zero, d->size) == 0)) /* file=: after format= */
                fprintf(stderr, "    %s= has no default but its field is not zero\n", d->name);
            continue;
        }
        const char *context = "";
        for (size_t k = 0; k < sizeof contexts / sizeof contexts[0]; k++)
            if (contexts[k].id == (options_id)i)
                context = contexts[k].context;
        char text[256];
        snprintf(text, sizeof text, "%s%s%s=%s", context, context[0] ? "," : "", d->name, d->deflt);
        if (!PARSE_OK(context))
            continue;
        with_context = opts;
        if (!PARSE_OK(text))
            continue;
        named = opts;
        CHECK(options_given(&named, (options_id)i) && !options_given(&with_context, (options_id)i));
        if (!CHECK_EQ_MEM((const char *)&named + d->at - 1, d->size, (const char *)&with_context + d->at - 1, d->size))
            fprintf(stderr, "    %s: naming the default changes the field\n", text);
        /* and the field the parser starts from is the table's default, parsed as the user's text is */
        if (d->kind == OPTIONS_KIND_UINT) {
            unsigned long v = 0;
            CHECK(options_parse_uint(d->deflt, d->min, d->max, &v));
            CHECK_EQ_INT(*(const unsigned *)field, v);
        } else if (d->kind == OPTIONS_KIND_DOUBLE) {
            double v = -1;
            CHECK(options_parse_fraction(d->deflt, &v));
            CHECK(*(const double *)field == v);
        } else if (d->kind == OPTIONS_KIND_BOOL) {
            CHECK_EQ_INT(*(const bool *)field, strcmp(d->deflt, "y") == 0);
        } else if (d->kind == OPTIONS_KIND_ENUM) {
            const options_choice *c = d->choices;
            while (c->text && strcmp(c->text, d->deflt) != 0)
                c++;
            if (CHECK(c->text != NULL) && i != OPTIONS_ID_CPU) /* cpu=: see test_cpu_and_monitor */
                CHECK_EQ_INT(d->size == 1 ? (int)*field : *(const int *)field, c->value);
        }
    }
    /* the defaults that follow from other options */
    CHECK_EQ_INT(plain.cpu, OPTIONS_CPU_SAMPLES);
    CHECK_EQ_STR(plain.file, "java.hprof.txt");
    CHECK(!plain.heap_dump && !plain.heap_sites);
    /* the CLI's --cutoff default is the agent's */
    double cut = -1;
    CHECK(options_parse_fraction(options_defs[OPTIONS_ID_CUTOFF].deflt, &cut) && cut == plain.cutoff);
}

/* given: which options were named, and nothing else (a default is not named). */
static void test_given(void)
{
    if (PARSE_OK("cpu=samples,depth=4,heap=sites,heap=sites,format=a")) {
        for (size_t i = 0; i < OPTIONS_ID_COUNT; i++) {
            bool want = i == OPTIONS_ID_CPU || i == OPTIONS_ID_DEPTH || i == OPTIONS_ID_HEAP || i == OPTIONS_ID_FORMAT;
            if (!CHECK_EQ_INT(options_given(&opts, (options_id)i), want))
                fprintf(stderr, "    %s\n", options_defs[i].name);
        }
    }
    if (PARSE_OK("heap=all,dumper=hotspot"))
        CHECK(opts.dumper_named && options_given(&opts, OPTIONS_ID_DUMPER));
    if (PARSE_OK("help"))
        CHECK(options_given(&opts, OPTIONS_ID_HELP) && opts.help);
}

/* Every option the table has (but those refused as not available) is a row
 * `| \`name=\` | values | default | meaning |` of docs/options.md's option
 * table, once, showing the table's default; that table has no other row.
 * A default there may add a note after a space ("all classes",
 * "a (b with heap=dump)"); a default written "x[.y]" (two, one chosen by
 * another option) must show both, `x.y` and `x`. Run from the repo root
 * (tests/run.sh does). */
static void test_readme_table(void)
{
    FILE *f = fopen("docs/options.md", "r");
    if (!CHECK(f != NULL)) {
        fprintf(stderr, "    docs/options.md not found: run from the repository's root\n");
        return;
    }
    unsigned rows[OPTIONS_ID_COUNT] = { 0 };
    char line[4096];
    bool in_section = false, in_table = false;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "## The options", 14) == 0) {
            in_section = true;
            continue;
        }
        if (!in_section)
            continue;
        if (line[0] != '|') {
            if (in_table)
                break;
            continue;
        }
        in_table = true;
        if (strncmp(line, "| `", 3) != 0)
            continue; /* the header and its rule */
        /* cells: | `name=` | values | default | meaning | */
        char *cells[4] = { NULL };
        char *p = line + 1;
        for (int c = 0; c < 4 && p; c++) {
            char *bar = strchr(p, '|');
            if (bar)
                *bar = '\0';
            cells[c] = p;
            p = bar ? bar + 1 : NULL;
        }
        if (!CHECK(cells[2] != NULL))
            continue;
        /* the name: between the first two backticks, without its '=' */
        char *name = strchr(cells[0], '`') + 1, *name_end = strchr(name, '`');
        if (!CHECK(name_end != NULL))
            continue;
        if (name_end > name && name_end[-1] == '=')
            name_end--;
        const options_def *d = options_find(name, (size_t)(name_end - name));
        if (!CHECK(d != NULL && d->kind != OPTIONS_KIND_LATER)) {
            fprintf(stderr, "    docs/options.md's option table has %.*s, which the options table lacks\n",
                    (int)(name_end - name), name);
            continue;
        }
        rows[d - options_defs]++;
        /* the default cell, trimmed, with and without its backticks */
        char *cell = cells[2];
        while (*cell == ' ')
            cell++;
        size_t n = strlen(cell);
        while (n > 0 && cell[n - 1] == ' ')
            cell[--n] = '\0';
        char plain[512];
        size_t k = 0;
        for (size_t j = 0; j < n && k + 1 < sizeof plain; j++)
            if (cell[j] != '`')
                plain[k++] = cell[j];
        plain[k] = '\0';
        const char *want = options_default_text(d);
        const char *bracket = strchr(want, '[');
        bool ok;
        if (bracket) {
            char longer[128], shorter[128];
            snprintf(shorter, sizeof shorter, "`%.*s`", (int)(bracket - want), want);
            snprintf(longer, sizeof longer, "`%.*s%.*s`", (int)(bracket - want), want,
                     (int)strcspn(bracket + 1, "]"), bracket + 1);
            ok = strstr(cell, longer) && strstr(cell, shorter);
        } else {
            size_t w = strlen(want);
            ok = strcmp(plain, want) == 0 || (strncmp(plain, want, w) == 0 && plain[w] == ' ');
        }
        if (!CHECK(ok))
            fprintf(stderr, "    docs/options.md shows %s='s default as \"%s\"; the options table has \"%s\"\n", d->name, cell,
                    want);
    }
    fclose(f);
    CHECK(in_table);
    for (size_t i = 0; i < OPTIONS_ID_COUNT; i++) {
        unsigned want = options_defs[i].kind == OPTIONS_KIND_LATER ? 0 : 1;
        if (!CHECK_EQ_INT(rows[i], want))
            fprintf(stderr, "    %s= is in docs/options.md's option table %u times\n", options_defs[i].name, rows[i]);
    }
}

/* JVMPROF_OPTIONS is appended to the -agentpath options, as one list. */
static void test_join(void)
{
    static const struct { const char *agentpath, *env, *want; } cases[] = {
        { "cpu=samples", "depth=8", "cpu=samples,depth=8" },
        { "cpu=samples", NULL, "cpu=samples" },
        { "cpu=samples", "", "cpu=samples" },
        { NULL, "depth=8", "depth=8" },
        { "", "depth=8", "depth=8" },
        { NULL, NULL, "" },
        { "", "", "" },
        { "a,", ",b", "a,,,b" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *all = options_join(cases[i].agentpath, cases[i].env);
        if (CHECK(all != NULL))
            CHECK_EQ_STR(all, cases[i].want);
        free(all);
    }
    /* joined, an option in both is given twice */
    char *all = options_join("cpu=times", "cpu=samples");
    ASSERT(all != NULL);
    PARSE_BAD3(all, "cpu= given twice (cpu=times, then cpu=samples)", "JVMPROF_OPTIONS", NULL);
    free(all);
    all = options_join("cpu=samples", "depth=8,thread=y");
    ASSERT(all != NULL);
    if (PARSE_OK(all))
        CHECK(opts.depth == 8 && opts.thread);
    free(all);
}

/* The value parsers the CLI shares (--cutoff, --top). */
static void test_value_parsers(void)
{
    double d = -1;
    CHECK(options_parse_fraction("0.5", &d) && d == 0.5);
    CHECK(options_parse_fraction(".25", &d) && d == 0.25);
    static const char *const bad_fraction[] = { "", " 0.5", "-0", "1.5", "nan", "x", "." };
    for (size_t i = 0; i < sizeof bad_fraction / sizeof bad_fraction[0]; i++)
        if (!CHECK(!options_parse_fraction(bad_fraction[i], &d)))
            fprintf(stderr, "    accepted '%s'\n", bad_fraction[i]);
    unsigned long u = 7;
    CHECK(options_parse_uint("0", 0, ULONG_MAX, &u) && u == 0);
    CHECK(options_parse_uint("18446744073709551615", 0, ULONG_MAX, &u) && u == ULONG_MAX);
    static const char *const bad_count[] = { "", " 5", " -5", "-5", "+5", "5 ", "5x", "18446744073709551616" };
    for (size_t i = 0; i < sizeof bad_count / sizeof bad_count[0]; i++)
        if (!CHECK(!options_parse_uint(bad_count[i], 0, ULONG_MAX, &u)))
            fprintf(stderr, "    accepted '%s'\n", bad_count[i]);
    CHECK(!options_parse_uint("0", 1, 10, &u) && !options_parse_uint("11", 1, 10, &u));
}

static void test_trace(void)
{
    if (PARSE_OK("trace=exec+thread+user,tracefile=/tmp/t-%p.trace,tracelimit=10m")) {
        CHECK_EQ_INT(opts.trace, OPTIONS_TRACE_ENTRY | OPTIONS_TRACE_EXIT | OPTIONS_TRACE_THREAD | OPTIONS_TRACE_USER);
        CHECK_EQ_INT(opts.cpu, OPTIONS_CPU_OFF); /* a mode: the default profile is off */
        CHECK_EQ_INT(opts.tracelimit, 10u << 20);
        char want[64];
        snprintf(want, sizeof want, "/tmp/t-%ld.trace", (long)PID);
        CHECK_EQ_STR(opts.tracefile, want);
    }
    if (PARSE_OK("trace=exec:light"))
        CHECK_EQ_INT(opts.trace, OPTIONS_TRACE_ENTRY);
    if (PARSE_OK("trace=user"))
        CHECK_EQ_STR(opts.tracefile, "java.trace");
    if (PARSE_OK("trace=exec,include=com.example."))
        CHECK_EQ_STR(opts.include, "com.example.");
    if (PARSE_OK("trace=thread,cpu=samples"))
        CHECK(opts.cpu == OPTIONS_CPU_SAMPLES && opts.trace == OPTIONS_TRACE_THREAD);
    PARSE_BAD3("trace=exce", "'exce' is no event class (did you mean exec?)", "exec|exec:light|mem|", NULL);
    if (PARSE_OK("trace=exec+mem:light+user"))
        CHECK(opts.trace == (OPTIONS_TRACE_ENTRY | OPTIONS_TRACE_EXIT | OPTIONS_TRACE_GC | OPTIONS_TRACE_USER));
    if (PARSE_OK("trace=mem+alloc+class+monitor"))
        CHECK(opts.trace == (OPTIONS_TRACE_GC | OPTIONS_TRACE_FREE | OPTIONS_TRACE_ALLOC | OPTIONS_TRACE_CLASS |
                             OPTIONS_TRACE_MONITOR));
    if (PARSE_OK("trace=all"))
        CHECK(opts.trace == OPTIONS_TRACE_ALL && opts.mintime_ns == 0);
    if (PARSE_OK("trace=exec,mintime=10ms"))
        CHECK(opts.mintime_ns == 10000000u);
    if (PARSE_OK("trace=exec,mintime=250us"))
        CHECK(opts.mintime_ns == 250000u);
    if (PARSE_OK("trace=exec,mintime=2s"))
        CHECK(opts.mintime_ns == 2000000000u);
    PARSE_BAD3("trace=exec,mintime=10", "mintime=10", "ns, us, ms, s", NULL);
    PARSE_BAD3("trace=exec,mintime=3601s", "mintime=3601s", NULL, NULL);
    PARSE_BAD3("trace=exec:light,mintime=1ms", "mintime= keeps the calls of trace=exec", NULL, NULL);
    PARSE_BAD3("mintime=1ms", "mintime= applies to trace=", NULL, NULL);
    if (PARSE_OK("trace=exec,receivers=n"))
        CHECK(!opts.receivers);
    if (PARSE_OK("trace=exec"))
        CHECK(opts.receivers);
    PARSE_BAD3("trace=exec:light,receivers=n", "receivers= applies to the entries of trace=exec", NULL, NULL);
    PARSE_BAD3("trace=exec,mintime=1ms,receivers=y", "receivers= applies", "mintime=", NULL);
    if (PARSE_OK("trace=exec,plugin=/tmp/libcount.so:verbose;x=1"))
        CHECK_EQ_STR(opts.plugin, "/tmp/libcount.so:verbose;x=1");
    PARSE_BAD3("plugin=/tmp/x.so", "plugin= applies to trace=, which is off", NULL, NULL);
    PARSE_BAD3("trace=alloc,heap=sites", "trace=alloc with heap=sites: both need JVMTI's allocation sampler",
               "one JVMTI environment holds at a time", "add alloc_interval=0,alloc_hook=bci");
    /* exact counts through JVMTI's sampler (alloc_hook=sampler, the default) need it too; bci's do not */
    PARSE_BAD3("trace=alloc,heap=sites,alloc_interval=0", "trace=alloc with heap=sites,alloc_interval=0: both need",
               "add alloc_hook=bci", NULL);
    PARSE_BAD3("trace=alloc,heap=sites,alloc_count=site", "trace=alloc with heap=sites: both need", NULL, NULL);
    if (PARSE_OK("trace=alloc,heap=sites,alloc_interval=0,alloc_hook=bci"))
        CHECK(opts.trace & OPTIONS_TRACE_ALLOC);
    PARSE_BAD3("trace=exec+", "nothing after the last '+'", NULL, NULL);
    PARSE_BAD3("trace=", "trace=: expected", NULL, NULL);
    PARSE_BAD3("tracefile=x.trace", "tracefile= applies to trace=, which is off", NULL, NULL);
    PARSE_BAD3("tracelimit=1m", "tracelimit= applies to trace=", NULL, NULL);
    PARSE_BAD3("trace=exec,cpu=times", "trace=exec with cpu=times", NULL, NULL);
    PARSE_BAD3("trace=exec,tiny=5", "tiny= applies to cpu=times and to trace=exec with mintime=", NULL, NULL);
    if (PARSE_OK("trace=exec,mintime=1ms,tiny=0"))
        CHECK(opts.tiny == 0 && opts.mintime_ns == 1000000u);
    if (PARSE_OK("trace=thread,include=a.")) /* for Control.tracingBegin's EXECUTION_ON later */
        CHECK_EQ_STR(opts.include, "a.");
    PARSE_BAD3("cpu=samples,include=a.", "include= applies to bytecode instrumentation", "trace=", NULL);
    PARSE_BAD3("trace=thread,file=x.txt", "file= with trace= alone", "tracefile=", NULL);
    PARSE_BAD3("trace=thread,depth=3", "depth= with trace= alone", NULL, NULL);
    PARSE_BAD3("trace=thread,pprof=p.pb.gz", "pprof= with trace= alone: pprof= is made from each report",
               "writes no report", "drop pprof=");
    PARSE_BAD3("trace=exec,jfr=r.jfr", "jfr= with trace= alone", "add a profile", NULL);
    if (PARSE_OK("trace=thread,cpu=samples,pprof=p.pb.gz,jfr=r.jfr"))
        CHECK_EQ_STR(opts.pprof, "p.pb.gz");
    PARSE_BAD3("trace=thread,tracelimit=5x", "tracelimit=5x", NULL, NULL);
}

/* record=y and its bounds: defaults, units (m, h), ranges, and what they need. */
static void test_record(void)
{
    if (PARSE_OK("cpu=samples,record=y")) {
        CHECK(opts.record);
        CHECK_EQ_INT(opts.maxage_ns, 600000000000ull);
        CHECK_EQ_INT(opts.maxsize, 32ull << 20);
    }
    if (PARSE_OK("cpu=samples,record=y,maxage=90s,maxsize=1m"))
        CHECK(opts.maxage_ns == 90000000000ull && opts.maxsize == 1u << 20);
    if (PARSE_OK("wall=10,record=y,maxage=2h"))
        CHECK(opts.maxage_ns == 7200000000000ull);
    if (PARSE_OK("monitor=y,cpu=times,record=y,maxage=1m"))
        CHECK(opts.maxage_ns == 60000000000ull);
    PARSE_BAD3("cpu=samples,record=y,maxage=10", "maxage=10", "1s..24h", NULL);
    PARSE_BAD3("cpu=samples,record=y,maxage=500ms", "maxage=500ms", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,maxage=25h", "maxage=25h", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,maxsize=100k", "maxsize=100k", "512k..64g", NULL);
    PARSE_BAD3("cpu=samples,record=maybe", "record=maybe", NULL, NULL);
    PARSE_BAD3("cpu=samples,maxage=2m", "maxage= bounds the recording of record=y", NULL, NULL);
    PARSE_BAD3("cpu=samples,maxsize=2m", "maxsize= bounds the recording of record=y", NULL, NULL);
    PARSE_BAD3("cpu=times,record=y", "record=y keeps samples, waits and allocations", "monitor=y", NULL);
    PARSE_BAD3("cpu=samples,sampler=jvmti,record=y", "not sampler=jvmti's", NULL, NULL);
}

/* trigger=: its words, its options' defaults and values, the default file from file=, the rules */
static void test_triggers(void)
{
    if (PARSE_OK("cpu=samples,record=y,trigger=oom+quit+cpu")) {
        CHECK_EQ_INT(opts.triggers, OPTIONS_TRIGGER_OOM | OPTIONS_TRIGGER_QUIT | OPTIONS_TRIGGER_CPU);
        CHECK_EQ_STR(opts.trigger_file, "java-trigger-%n.hprof.txt");
        CHECK_EQ_INT(opts.trigger_interval_ns, 60000000000ull);
        CHECK_EQ_INT(opts.cpu_above, 80);
        CHECK_EQ_INT(opts.cpu_for_ns, 10000000000ull);
    }
    if (PARSE_OK("cpu=samples,record=y,trigger=all,trace=exec,mintime=5ms"))
        CHECK_EQ_INT(opts.triggers, OPTIONS_TRIGGER_ALL);
    if (PARSE_OK("cpu=samples,record=y"))
        CHECK(opts.triggers == 0 && opts.trigger_file[0] == '\0');
    /* trigger_file='s default from file=: -trigger-%n before the extension, or file='s %n made trigger-%n */
    if (PARSE_OK("cpu=samples,record=y,trigger=quit,file=/var/log/app.v2/prof.txt"))
        CHECK_EQ_STR(opts.trigger_file, "/var/log/app.v2/prof-trigger-%n.txt");
    if (PARSE_OK("cpu=samples,record=y,trigger=quit,file=out/run-%n.txt"))
        CHECK_EQ_STR(opts.trigger_file, "out/run-trigger-%n.txt");
    if (PARSE_OK("cpu=samples,record=y,trigger=quit,file=profile"))
        CHECK_EQ_STR(opts.trigger_file, "profile-trigger-%n");
    if (PARSE_OK("cpu=samples,record=y,trigger=quit,format=b"))
        CHECK_EQ_STR(opts.trigger_file, "java-trigger-%n.hprof");
    if (PARSE_OK("cpu=samples,record=y,trigger=quit,trigger_file=dumps/q-%p-%n.txt,trigger_interval=2h"))
        CHECK(strstr(opts.trigger_file, "dumps/q-") == opts.trigger_file && strstr(opts.trigger_file, "-%n.txt") &&
              opts.trigger_interval_ns == 7200000000000ull);
    if (PARSE_OK("wall=10,record=y,trigger=cpu,cpu_above=250,cpu_for=1m"))
        CHECK(opts.cpu_above == 250 && opts.cpu_for_ns == 60000000000ull);
    if (PARSE_OK("wall=10,record=y,trigger=cpu,cpu_above=1%"))
        CHECK_EQ_INT(opts.cpu_above, 1);
    PARSE_BAD3("cpu=samples,trigger=oom", "trigger= dumps the recording of record=y; add record=y", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=oops", "'oops' is no trigger (did you mean oom?)", "oom|quit|cpu|slow|all",
               NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=oom+", "nothing after the last '+'", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=", "trigger=: expected trigger=oom|quit|cpu|slow|all", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=quit,trigger_file=q.txt", "trigger_file=q.txt: each trigger's dump is "
               "numbered", "put %n in it", NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=quit,trigger_interval=999ms", "trigger_interval=999ms: bad value",
               "1s..24h", NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=quit,trigger_interval=25h", "trigger_interval=25h", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=cpu,cpu_above=0", "cpu_above=0: bad value; expected 1..100000", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=cpu,cpu_above=100001%", "cpu_above=100001%", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=cpu,cpu_above=80%%", "cpu_above=80%%: bad value", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=cpu,cpu_above=-5", "cpu_above=-5", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=cpu,cpu_above=%", "cpu_above=%: bad value", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=cpu,cpu_for=2h", "cpu_for=2h: bad value; expected 1s..1h", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=oom,cpu_for=5s", "cpu_for= shapes trigger=cpu", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,cpu_above=50", "cpu_above= shapes trigger=cpu", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger_file=x-%n.txt", "trigger_file= applies to the dumps of trigger=", NULL,
               NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=slow", "trigger=slow fires on a call of trace=exec slower than mintime=",
               NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=slow,trace=exec", "trigger=slow", NULL, NULL);
    PARSE_BAD3("cpu=samples,record=y,trigger=quit,trigger=oom", "trigger= given twice", NULL, NULL);
}

/* upload= and its options: the URL and the name checked, record=y turned on, what they need. */
static void test_upload(void)
{
    if (PARSE_OK("upload=http://127.0.0.1:4040")) {
        CHECK_EQ_STR(opts.upload, "http://127.0.0.1:4040");
        CHECK(opts.record);                      /* implied */
        CHECK(opts.cpu == OPTIONS_CPU_SAMPLES);  /* the default profile */
        CHECK_EQ_INT(opts.upload_interval_ns, 10000000000ull);
        CHECK_EQ_INT(opts.upload_queue, 4u << 20);
        CHECK_EQ_STR(opts.upload_app, "");
    }
    if (PARSE_OK("wall=20,upload=http://gw/p/ingest,upload_interval=1m,upload_app=shop{env=prod+dc=eu},upload_queue=64k")) {
        CHECK(opts.record && opts.wall_ms == 20);
        CHECK_EQ_INT(opts.upload_interval_ns, 60000000000ull);
        CHECK_EQ_STR(opts.upload_app, "shop{env=prod+dc=eu}");
        CHECK_EQ_INT(opts.upload_queue, 64u << 10);
    }
    if (PARSE_OK("upload=http://h,record=y,maxage=30s,upload_interval=30s"))
        CHECK(opts.maxage_ns == 30000000000ull);
    PARSE_BAD3("upload=https://h:4040", "https:// is not supported", NULL, NULL);
    PARSE_BAD3("upload=h:4040", "no http://", "expected upload=http://HOST[:PORT][/PATH]", NULL);
    PARSE_BAD3("upload=http://h:99999", "the port is a number 1-65535", NULL, NULL);
    PARSE_BAD3("upload=http://h,upload_app=my app", "upload_app=my app", "a name is letters", NULL);
    PARSE_BAD3("upload=http://h,upload_interval=500ms", "upload_interval=500ms", "1s..1h", NULL);
    PARSE_BAD3("upload=http://h,upload_interval=1500ms", "upload_interval= is a whole number of seconds", NULL, NULL);
    PARSE_BAD3("upload=http://h,upload_interval=2h", "upload_interval=2h", NULL, NULL);
    PARSE_BAD3("upload=http://h,upload_queue=1k", "upload_queue=1k", "16k..1g", NULL);
    PARSE_BAD3("cpu=samples,upload_interval=5s", "upload_interval= goes with upload=URL", NULL, NULL);
    PARSE_BAD3("cpu=samples,upload_app=x", "upload_app= goes with upload=URL", NULL, NULL);
    PARSE_BAD3("upload=http://h,record=n", "record=n turns it off", NULL, NULL);
    PARSE_BAD3("upload=http://h,maxage=5s", "upload_interval= is longer than maxage=", NULL, NULL);
    PARSE_BAD3("upload=http://h,cpu=times", "upload= sends the recording's samples", "monitor=y", NULL);
}

int main(void)
{
    RUN(test_upload);
    RUN(test_trace);
    RUN(test_defaults);
    RUN(test_cpu_and_monitor);
    RUN(test_bool_options);
    RUN(test_help);
    RUN(test_interval);
    RUN(test_cstack_default);
    RUN(test_depth);
    RUN(test_cutoff);
    RUN(test_file);
    RUN(test_cpu_times);
    RUN(test_sampler_wall_flame);
    RUN(test_heap);
    RUN(test_given_twice);
    RUN(test_interval_unused);
    RUN(test_heap_dump_alone);
    RUN(test_net);
    RUN(test_later_and_unknown);
    RUN(test_small_error_buffer);
    RUN(test_table_defaults);
    RUN(test_given);
    RUN(test_readme_table);
    RUN(test_join);
    RUN(test_value_parsers);
    RUN(test_record);
    RUN(test_triggers);
    return DONE();
}
