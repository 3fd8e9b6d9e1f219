/*
 * test_web.c: libhprofweb (web/web_page.h): the report page holds its
 * assets (the files of web/assets, inlined), the title escaped and the data
 * verbatim in its script element; it refuses data that could close that
 * element; it names no network location anywhere; write errors come back
 * as -1 with the stream's errno.
 */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "web_assets.h"
#include "web_page.h"

static const char tw_json[] =
    "{\"format\":\"hprof-report\",\"version\":1,\"title\":\"a \\u003c b\",\"names\":[]}";

/* The page for json/title, malloc'ed; *len its size; NULL when refused. */
static char *tw_page(const char *json, size_t jlen, const char *title, size_t *len, int *rc)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    *rc = web_page_write(f, json, jlen, title);
    CU_ASSERT_EQUAL(fclose(f), 0);
    *len = n;
    return buf;
}

static char *tw_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char *buf = malloc(1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    CU_ASSERT_EQUAL(ferror(f), 0);
    fclose(f);
    return buf;
}

static size_t tw_count(const char *hay, const char *needle)
{
    size_t c = 0;
    for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
        c++;
    return c;
}

static void test_embeds_assets_and_data(void)
{
    size_t len;
    int rc;
    char *page = tw_page(tw_json, strlen(tw_json), "java.hprof.txt", &len, &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(len, web_assets_head_len + strlen("java.hprof.txt") + web_assets_mid_len +
                             strlen(tw_json) + web_assets_tail_len);
    CU_ASSERT_EQUAL(strlen(page), len);
    CU_ASSERT_PTR_NOT_NULL(strstr(page, "<title>java.hprof.txt</title>"));
    /* the data, verbatim, in its element, once */
    char want[512];
    snprintf(want, sizeof want, "<script type=\"application/json\" id=\"hprof-data\">%s</script>",
             tw_json);
    CU_ASSERT_PTR_NOT_NULL(strstr(page, want));
    /* the data element is the page's last element and the only place its id
     * is spelled: scripts find the data by the id, or by the last </script> */
    CU_ASSERT_EQUAL(tw_count(page, "hprof-data"), 1);
    snprintf(want, sizeof want, "%s</script>\n</body>\n</html>\n", tw_json);
    CU_ASSERT(len > strlen(want) && strcmp(page + len - strlen(want), want) == 0);
    /* the three asset files, whole */
    static const char *const assets[] = {"report.css", "report.js"};
    for (size_t i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", HPROF_WEB_ASSETS, assets[i]);
        char *text = tw_read(path);
        CU_ASSERT(strlen(text) > 1000);
        CU_ASSERT_PTR_NOT_NULL(strstr(page, text));
        free(text);
    }
    CU_ASSERT_EQUAL(tw_count(page, "<style>"), 1);
    CU_ASSERT_EQUAL(tw_count(page, "</script>"), 2);
    CU_ASSERT_EQUAL(tw_count(page, "{{"), 0);
    CU_ASSERT_EQUAL(strncmp(page, "<!DOCTYPE html>", 15), 0);
    CU_ASSERT_EQUAL(strcmp(page + len - 8, "</html>\n"), 0);
    free(page);
}

static void test_title_escaped(void)
{
    size_t len;
    int rc;
    char *page = tw_page("{}", 2, "a<b>&\"c'd", &len, &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(page, "<title>a&lt;b&gt;&amp;&quot;c&#39;d</title>"));
    free(page);
    page = tw_page("{}", 2, NULL, &len, &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(page, "<title>hprof report</title>"));
    free(page);
}

static void test_refuses_closing_tag(void)
{
    static const char *const bad[] = {
        "{\"names\":[\"</script><script>alert(1)\"]}",
        "{\"a\":\"x</\"}",
        "</",
        "{\"a\":\"<\"}</",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t len;
        int rc;
        errno = 0;
        char *page = tw_page(bad[i], strlen(bad[i]), "t", &len, &rc);
        CU_ASSERT_EQUAL(rc, -1);
        CU_ASSERT_EQUAL(errno, EINVAL);
        CU_ASSERT_EQUAL(len, 0); /* nothing written */
        free(page);
    }
    /* a NUL inside the data */
    size_t len;
    int rc;
    char *page = tw_page("{\"a\":\"\0\"}", 9, "t", &len, &rc);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_EQUAL(len, 0);
    free(page);
    /* '<' alone and "/" alone are fine (a JSON writer that escapes '<' never
     * produces either, but the check is on the pair only) */
    page = tw_page("{\"a\":\"< /\"}", 11, "t", &len, &rc);
    CU_ASSERT_EQUAL(rc, 0);
    free(page);
    CU_ASSERT_EQUAL(web_page_write(NULL, "{}", 2, "t"), -1);
}

static void test_no_network_reference(void)
{
    size_t len;
    int rc;
    char *page = tw_page(tw_json, strlen(tw_json), "t", &len, &rc);
    CU_ASSERT_EQUAL(rc, 0);
    static const char *const net[] = {"http://", "https://", "//cdn", "http:", "https:", "ws://",
                                      "wss://", "ftp:", "src=", "@import", "url("};
    for (size_t i = 0; i < sizeof net / sizeof net[0]; i++) {
        int found = 0;
        for (const char *p = page; *p != '\0'; p++)
            if (strncasecmp(p, net[i], strlen(net[i])) == 0)
                found = 1;
        if (found)
            fprintf(stderr, "\n  the page holds \"%s\"\n", net[i]);
        CU_ASSERT_EQUAL(found, 0);
    }
    /* no <link>, no <img>, no external <script src> */
    CU_ASSERT_PTR_NULL(strstr(page, "<link"));
    CU_ASSERT_PTR_NULL(strstr(page, "<img"));
    CU_ASSERT_PTR_NULL(strstr(page, "<iframe"));
    free(page);
}

static void test_write_error(void)
{
    FILE *f = fopen("/dev/full", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    setvbuf(f, NULL, _IONBF, 0);
    errno = 0;
    CU_ASSERT_EQUAL(web_page_write(f, tw_json, strlen(tw_json), "t"), -1);
    CU_ASSERT_EQUAL(errno, ENOSPC);
    fclose(f);
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("web_page", NULL, NULL);
    if (s == NULL)
        return -1;
    CU_add_test(s, "embeds the assets and the data", test_embeds_assets_and_data);
    CU_add_test(s, "title escaped", test_title_escaped);
    CU_add_test(s, "refuses \"</\" in the data", test_refuses_closing_tag);
    CU_add_test(s, "no network reference", test_no_network_reference);
    CU_add_test(s, "write error", test_write_error);
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
