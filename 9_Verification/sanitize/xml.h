/* xml.h: a small, strict XML reader for compute-sanitizer reports (and the
 * JUnit files the harness writes, which the tests read back).
 *
 * Reads a whole document into a tree of elements: names, attributes, text
 * (entities and character references decoded, CDATA kept verbatim),
 * comments and processing instructions (the <?xml ...?> prolog) skipped.
 * A DOCTYPE without an internal subset is skipped; one with a subset
 * ([...]) is refused, so no entity can expand. Anything malformed or
 * truncated gives NULL and a message "line L, column C: what" -- never a
 * crash, never a partial tree. Host-only C11.
 */
#ifndef SANITIZE_XML_H
#define SANITIZE_XML_H

#include <stddef.h>

#define XML_MAX_DEPTH 200
/* More attributes than this in one element is refused (compute-sanitizer's
 * reports use none; checking for repeats stays cheap). */
#define XML_MAX_ATTRS 64
/* Elements in one tree (xml_parse) or in one child of the root
 * (xml_parse_stream) unless the caller sets its own limit. */
#define XML_DEFAULT_MAX_NODES 100000

/* Limits on one parse; zeros mean the defaults. Every step of the reader is
 * linear in the input, and these bound what it holds and how long it runs:
 * the parse fails with a message when a limit is passed. */
typedef struct {
    size_t max_nodes;  /* elements held at once (see XML_DEFAULT_MAX_NODES) */
    double deadline;   /* CLOCK_MONOTONIC seconds; 0: no deadline */
} xml_limits;

typedef struct {
    char *name;
    char *value;
} xml_attr;

typedef struct xml_node {
    char *name;
    char *text;              /* text content of this element, trimmed ("" if none) */
    xml_attr *attrs;
    int n_attrs;
    struct xml_node **kids;
    int n_kids;
    struct xml_node *parent;
} xml_node;

/* Parse len bytes. Returns the root element, or NULL with err filled. */
xml_node *xml_parse(const char *text, size_t len, char *err, size_t errlen);
xml_node *xml_parse_limited(const char *text, size_t len, const xml_limits *lim, char *err,
                            size_t errlen);

/* Streaming: each child element of the root is built, handed to fn with
 * the root (its name and attributes; no children), and freed, so memory
 * holds one child at a time (a report's root holds one <record> per
 * finding). The root's own text is skipped. fn returns 0 to go on, or
 * non-zero to stop the parse with its message in err. The root's name goes
 * to root_name. Returns 0, or -1 with err filled. */
typedef int (*xml_child_fn)(const xml_node *root, const xml_node *child, void *ctx, char *err,
                            size_t errlen);
int xml_parse_stream(const char *text, size_t len, const xml_limits *lim, xml_child_fn fn,
                     void *ctx, char *root_name, size_t root_len, char *err, size_t errlen);

/* Read a whole file of at most max_bytes into a malloc'd buffer (NUL
 * added). The file is opened without following a symbolic link in its last
 * component and must be a regular file (a FIFO or a device would block or
 * never end). 0, or -1 with err naming the file. */
int xml_read_file(const char *path, size_t max_bytes, char **text, size_t *len, char *err,
                  size_t errlen);
/* Read and parse a file (NULL with err naming the file on any failure);
 * files over 64 MiB are refused. */
xml_node *xml_parse_file(const char *path, char *err, size_t errlen);
void xml_free(xml_node *root);

/* First child element with this name, or NULL. */
const xml_node *xml_child(const xml_node *n, const char *name);
/* Text of the first child with this name, or NULL. */
const char *xml_child_text(const xml_node *n, const char *name);
/* Attribute value, or NULL. */
const char *xml_attr_get(const xml_node *n, const char *name);
/* First element with this name in the subtree (depth first, n included). */
const xml_node *xml_find(const xml_node *n, const char *name);

#endif
