/* json_valid.h: a strict JSON validator (RFC 8259) for the tests.
 * Linked into every unit-test program, and built as the command
 * build/tests/json_check for the process tests:
 *     json_check FILE          FILE holds one JSON document
 *     json_check --lines FILE  every non-empty line of FILE is a JSON document
 */
#ifndef TESTS_JSON_VALID_H
#define TESTS_JSON_VALID_H
#include <stddef.h>

/* 1 if text (len bytes) is exactly one valid JSON value (surrounding white
 * space allowed), else 0 with the reason and byte offset in err. */
int json_valid(const char *text, size_t len, char *err, size_t errlen);

/* 1 if every non-empty line is a valid JSON value; err names the line. */
int json_lines_valid(const char *text, size_t len, char *err, size_t errlen);

#endif
