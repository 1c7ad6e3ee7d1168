/* Import's report in words (import.h): the FULL text (every part, the joint map, every
 * finding and warning: NAME.import.txt and `import --verbose`) and the SUMMARY a command
 * ends with (at most 15 lines: what was written, the verdict, the worst findings each with
 * what to do, the next step). A finding or warning repeated across parts is said once with
 * its count. Names from the file are shown with control characters escaped (core/text.h). */
#ifndef AM_IMPORT_TEXT_H
#define AM_IMPORT_TEXT_H

#ifdef __cplusplus
extern "C" {
#endif

#include "core/io.h"
#include "import/import.h"

#define AM_IMPORT_SUMMARY_MAX_LINES 15 /* with the command's own "reading" line */

am_status am_import_report_text(const am_import_report *r, am_buf *out, am_error *err);
/* `report_file`: where the full text was written ("" none); `out_dir` the run's folder. */
am_status am_import_summary_text(const am_import_report *r, const char *out_dir, const char *report_file, am_buf *out,
                                 am_error *err);
/* What to do about a finding of `code` (every code import raises has one). */
const char *am_import_finding_remedy(const char *code);
/* Is a finding of `code` a warning (a thing to fix) rather than a note (what was done)? */
bool am_import_finding_is_warning(const char *code);

#ifdef __cplusplus
}
#endif

#endif
