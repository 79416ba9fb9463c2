/* test_ingest_request.c — one profile as a request to Pyroscope's /ingest
 * (src/upload/ingest_request.c): upload_app= into Pyroscope's NAME{K=V,...}
 * and its refusals, the default name from the JVM's command line, the query
 * (percent-encoded, from/until/format/sampleRate/spyName), and the whole
 * request: its head (path, Host, Content-Type with the boundary,
 * Content-Length equal to the body's length) and its multipart body (the
 * profile's bytes unchanged in the field "profile", the JSON sample type
 * configuration in "sample_type_config"), the request written out by hand. */
#include "harness.h"

#include "upload/ingest_request.h"

static void test_app_name(void)
{
    char out[INGEST_APP_MAX], err[512];
    ASSERT(ingest_app_name("shop", out, sizeof out, err, sizeof err));
    CHECK_EQ_STR(out, "shop");
    ASSERT(ingest_app_name("shop.web-1{env=prod+region=eu-west:1+_k2=a/b}", out, sizeof out, err, sizeof err));
    CHECK_EQ_STR(out, "shop.web-1{env=prod,region=eu-west:1,_k2=a/b}");
    ASSERT(ingest_app_name("x{}", out, sizeof out, err, sizeof err));
    CHECK_EQ_STR(out, "x{}");
    static const struct { const char *text, *why; } bad[] = {
        { "", "no name" },
        { "{env=prod}", "no name" },
        { "my app", "a name is letters" },
        { "app{env=prod", "the labels end with '}'" },
        { "app{env}", "a label is KEY=VALUE" },
        { "app{env=}", "a label's value is empty" },
        { "app{env=prod+}", "nothing after the last '+'" },
        { "app{1env=prod}", "a label's key starts with a letter" },
        { "app{env=pr od}", "a label's value is letters" },
        { "app{env=a,b=c}", "a label's value is letters" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK(!ingest_app_name(bad[i].text, out, sizeof out, err, sizeof err));
        if (!CHECK(strstr(err, bad[i].why) != NULL))
            fprintf(stderr, "    %s: %s\n", bad[i].text, err);
        CHECK(strstr(err, "expected upload_app=NAME or NAME{KEY=VALUE+KEY=VALUE}") != NULL);
    }
}

static void test_default_app(void)
{
    char out[64];
    ingest_default_app("com.example.shop.Main --port 80", out, sizeof out);
    CHECK_EQ_STR(out, "Main");
    ingest_default_app("/opt/app/shop-server.jar --x", out, sizeof out);
    CHECK_EQ_STR(out, "shop-server");
    ingest_default_app("mod.a/org.x.App$Inner", out, sizeof out);
    CHECK_EQ_STR(out, "App_Inner");
    ingest_default_app("", out, sizeof out);
    CHECK_EQ_STR(out, "java");
    ingest_default_app(NULL, out, sizeof out);
    CHECK_EQ_STR(out, "java");
    ingest_default_app("Busy", out, 3);
    CHECK_EQ_STR(out, "Bu");
}

static void test_query(void)
{
    buf b;
    buf_init(&b);
    ingest_query q = { "shop{env=prod,region=eu}", 1700000000, 1700000010, 100, false };
    ingest_query_string(&q, &b);
    buf_put_u1(&b, 0);
    CHECK_EQ_STR((char *)b.data, "name=shop%7Benv%3Dprod%2Cregion%3Deu%7D&from=1700000000&until=1700000010"
                                 "&format=pprof&sampleRate=100&spyName=jvmprof");
    buf_reset(&b);
    q.sample_rate_hz = 0;
    q.app = "a";
    ingest_query_string(&q, &b);
    buf_put_u1(&b, 0);
    CHECK_EQ_STR((char *)b.data, "name=a&from=1700000000&until=1700000010&format=pprof&spyName=jvmprof");
    buf_free(&b);
}

static void test_request(void)
{
    upload_url u = { "pyro", 4040, "/ingest" };
    ingest_query q = { "app", 10, 20, 50, true };
    const unsigned char profile[] = { 0x1f, 0x8b, 0x08, 0x00, '\r', '\n', '-', '-', 0x00, 0xff };
    buf req;
    buf_init(&req);
    ASSERT(ingest_request_build(&u, &q, profile, sizeof profile, "BND", &req));
    const char *config =
        "{\"samples\":{\"units\":\"samples\",\"aggregation\":\"sum\",\"display-name\":\"wall\",\"sampled\":true},"
        "\"alloc_objects\":{\"units\":\"objects\",\"aggregation\":\"sum\",\"display-name\":\"alloc_objects\"},"
        "\"alloc_space\":{\"units\":\"bytes\",\"aggregation\":\"sum\",\"display-name\":\"alloc_space\"},"
        "\"contentions\":{\"units\":\"lock_samples\",\"aggregation\":\"sum\",\"display-name\":\"lock_count\"},"
        "\"delay\":{\"units\":\"lock_nanoseconds\",\"aggregation\":\"sum\",\"display-name\":\"lock_duration\"}}";
    buf want_body;
    buf_init(&want_body);
    buf_printf(&want_body, "--BND\r\nContent-Disposition: form-data; name=\"profile\"; filename=\"profile.pprof\"\r\n"
                           "Content-Type: application/octet-stream\r\n\r\n");
    buf_put(&want_body, profile, sizeof profile);
    buf_printf(&want_body, "\r\n--BND\r\nContent-Disposition: form-data; name=\"sample_type_config\"; "
                           "filename=\"sample_type_config.json\"\r\nContent-Type: application/json\r\n\r\n%s"
                           "\r\n--BND--\r\n", config);
    buf want;
    buf_init(&want);
    buf_printf(&want, "POST /ingest?name=app&from=10&until=20&format=pprof&sampleRate=50&spyName=jvmprof HTTP/1.1\r\n"
                      "Host: pyro:4040\r\nUser-Agent: jvmprof/%s\r\n"
                      "Content-Type: multipart/form-data; boundary=BND\r\nContent-Length: %zu\r\n"
                      "Connection: close\r\n\r\n", JP_VERSION, want_body.len);
    buf_put(&want, want_body.data, want_body.len);
    CHECK_EQ_MEM(req.data, req.len, want.data, want.len);
    /* the default port is not named in Host; an IPv6 host is in brackets */
    upload_url u6 = { "::1", 80, "/x" };
    buf_reset(&req);
    ASSERT(ingest_request_build(&u6, &q, profile, sizeof profile, "BND", &req));
    buf_put_u1(&req, 0);
    CHECK(strstr((char *)req.data, "POST /x?name=app&") == (char *)req.data);
    CHECK(strstr((char *)req.data, "\r\nHost: [::1]\r\n") != NULL);
    buf_free(&req);
    buf_free(&want);
    buf_free(&want_body);
}

int main(void)
{
    RUN(test_app_name);
    RUN(test_default_app);
    RUN(test_query);
    RUN(test_request);
    return DONE();
}
