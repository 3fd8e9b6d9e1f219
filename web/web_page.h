/*
 * web_page.h: libhprofweb, the self-contained HTML page of `hprof report`.
 *
 * Owns: writing the page (HTML, CSS and JavaScript embedded at build time,
 * nothing fetched: it works opened from disk, offline) with the report data
 * (the JSON document described in docs/report.md) inside
 * <script type="application/json" id="hprof-data">.
 */
#ifndef WEB_PAGE_H
#define WEB_PAGE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Writes the page to out: title (UTF-8, may be NULL) goes into <title>,
 * HTML-escaped; json (len bytes) goes verbatim into the data element.
 * Returns 0, or -1 with errno: EINVAL when json holds "</" (it could close
 * the script element: the report data's writer escapes '<' as \u003c, so
 * this never happens to a well-formed document) or a NUL byte; otherwise
 * the stream's errno when a write fails (checked with ferror, so a caller
 * still fflush/fcloses and checks that too).
 */
int web_page_write(FILE *out, const char *json, size_t len, const char *title);

#endif
