/*
 * web_assets.h: the report page's template, generated at build time by
 * web_embed from assets/report.html with report.css and report.js inlined.
 *
 * Contract: the template is cut in three parts at its two placeholders;
 * the page is head + HTML-escaped title + mid + JSON data + tail. The parts
 * are not NUL-terminated strings (lengths given); none of them contains a
 * network reference (web_embed refuses "http:", "https:" and "//cdn").
 */
#ifndef WEB_ASSETS_H
#define WEB_ASSETS_H

#include <stddef.h>

extern const unsigned char web_assets_head[];
extern const size_t web_assets_head_len;
extern const unsigned char web_assets_mid[];
extern const size_t web_assets_mid_len;
extern const unsigned char web_assets_tail[];
extern const size_t web_assets_tail_len;

#endif
