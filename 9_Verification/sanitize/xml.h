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
/* Read and parse a file (NULL with err naming the file on any failure). */
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
