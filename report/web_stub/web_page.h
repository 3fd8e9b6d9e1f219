/* web_page.h: STAND-IN for the page helper's web/ module, only on the
 * `report` branch, to be deleted when web/ is merged: the same declaration,
 * writing a page with the data and no rendering. */
#ifndef WEB_PAGE_H
#define WEB_PAGE_H

#include <stddef.h>
#include <stdio.h>

/* Writes the HTML page holding `json` (len bytes) in
 * <script type="application/json" id="hprof-data">. 0, or -1 with errno. */
int web_page_write(FILE *out, const char *json, size_t len, const char *title);

#endif
