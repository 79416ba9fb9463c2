/* test_upload_url.c — upload='s URL (src/upload/upload_url.c): host, port and
 * path of plain http:// URLs (the default port 80 and path /ingest, IPv6 in
 * brackets), and each malformed one refused in one line saying why:
 * https://, other schemes, no host, bad ports, a query, user info. */
#include "harness.h"

#include "upload/upload_url.h"

static void test_good(void)
{
    upload_url u;
    char err[512];
    ASSERT(upload_url_parse("http://127.0.0.1:4040", &u, err, sizeof err));
    CHECK_EQ_STR(u.host, "127.0.0.1");
    CHECK_EQ_INT(u.port, 4040);
    CHECK_EQ_STR(u.path, "/ingest");
    ASSERT(upload_url_parse("http://pyroscope.example.com/", &u, err, sizeof err));
    CHECK_EQ_STR(u.host, "pyroscope.example.com");
    CHECK_EQ_INT(u.port, 80);
    CHECK_EQ_STR(u.path, "/ingest");
    ASSERT(upload_url_parse("HTTP://gw:8080/pyroscope/ingest", &u, err, sizeof err));
    CHECK_EQ_STR(u.host, "gw");
    CHECK_EQ_INT(u.port, 8080);
    CHECK_EQ_STR(u.path, "/pyroscope/ingest");
    ASSERT(upload_url_parse("http://[::1]:4040/ingest", &u, err, sizeof err));
    CHECK_EQ_STR(u.host, "::1");
    CHECK_EQ_INT(u.port, 4040);
}

/* Each refused, with err holding the reason. */
static void bad(const char *url, const char *why)
{
    upload_url u;
    char err[512] = "";
    CHECK(!upload_url_parse(url, &u, err, sizeof err));
    if (!CHECK(strstr(err, why) != NULL))
        fprintf(stderr, "    %s: %s\n", url, err);
    CHECK(strstr(err, "expected upload=http://HOST[:PORT][/PATH]") != NULL);
    CHECK(strchr(err, '\n') == NULL);
}

static void test_bad(void)
{
    bad("https://pyroscope:4040", "https:// is not supported");
    bad("ftp://x/", "only http:// is supported");
    bad("pyroscope:4040", "no http://");
    bad("", "empty");
    bad("http://", "no host");
    bad("http://:4040", "no host");
    bad("http://h:0", "the port is a number 1-65535");
    bad("http://h:65536", "the port is a number 1-65535");
    bad("http://h:12ab", "the port is a number 1-65535");
    bad("http://h:", "the port is a number 1-65535");
    bad("http://h:4040/ingest?name=x", "no query or fragment");
    bad("http://h?x", "no query or fragment");
    bad("http://user:pw@h:4040", "user names and passwords are not supported");
    bad("http://h/a b", "a path of printable ASCII");
    bad("http://[::1", "an IPv6 address without its ']'");
    bad("http://h/x\x01", "a path of printable ASCII");
    bad("http://h!x/", "a host is letters, digits");
    char longurl[1100];
    memset(longurl, 'a', sizeof longurl - 1);
    memcpy(longurl, "http://", 7);
    longurl[sizeof longurl - 1] = '\0';
    bad(longurl, "too long");
}

int main(void)
{
    RUN(test_good);
    RUN(test_bad);
    return DONE();
}
