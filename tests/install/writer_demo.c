/*
 * writer_demo.c: a program that uses an installed libhprofwriter the way a
 * user would: `cc writer_demo.c $(pkg-config --cflags --libs libhprofwriter)`.
 * tests/integration/test_install.sh builds it against a temporary install
 * (shared and static), runs it and opens its file with VisualVM's heap
 * library, asserting what main() below promises:
 *   classes java.lang.Object, java.lang.String, byte[], com.example.Point,
 *   com.example.Point[] (5); 3 Points, 1 String "hello, hprof" (its byte[]),
 *   1 Point[] of length 4 whose last element is null; roots: 4 sticky
 *   classes, 2 JNI globals (the array and the String); a HEAP SUMMARY of
 *   6 live instances.
 *
 * usage: writer_demo OUT.hprof   (exit 1 with the library's error message)
 */
#include <stdio.h>
#include <string.h>

#include <hprof/hw_writer.h>

enum { OBJECT = 0x100, STRING = 0x200, BYTES = 0x300, POINT = 0x400, POINTS = 0x500 };
enum { TEXT = 0x1000, ARRAY = 0x2000, FIRST_POINT = 0x3000 };

/* One class of the demo: its LOAD CLASS goes before the heap dump, its
 * CLASS DUMP (no statics) in it. Its serial is also its name's UTF8 id. */
typedef struct demo_class {
    uint32_t serial;
    hprof_id id, super;
    const char *name;
    const hw_field *fields;
    uint16_t nfields;
    uint32_t size; /* bytes of the instance values, this class's and its supers' */
} demo_class;

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: writer_demo OUT.hprof\n");
        return 2;
    }
    hw_options o;
    hw_options_init(&o); /* JAVA PROFILE 1.0.2, 8-byte ids, 1 MiB segments */
    int err = 0;
    hw_sink *sink = hw_sink_file(argv[1], &err); /* mode 0600, no symlinks */
    hw_writer *w = sink ? hw_writer_open(sink, &o, &err) : NULL;
    if (!w) {
        fprintf(stderr, "writer_demo: %s: %s\n", argv[1], strerror(err));
        return 1;
    }
    hw_trace(w, 1, 0, 0, NULL); /* the empty trace: "no trace" */

    /* names of fields; class names get ids 1..5 below */
    hw_utf8z(w, 10, "value");
    hw_utf8z(w, 11, "coder");
    hw_utf8z(w, 12, "x");
    hw_utf8z(w, 13, "y");
    hw_utf8z(w, 14, "label");
    const hw_field string_fields[] = {{10, HPROF_TYPE_OBJECT}, {11, HPROF_TYPE_BYTE}};
    const hw_field point_fields[] = {{12, HPROF_TYPE_INT}, {13, HPROF_TYPE_INT},
                                     {14, HPROF_TYPE_OBJECT}};
    const demo_class classes[] = {
        {1, OBJECT, 0, "java/lang/Object", NULL, 0, 0},
        {2, STRING, OBJECT, "java/lang/String", string_fields, 2, 8 + 1},
        {3, BYTES, OBJECT, "[B", NULL, 0, 0},
        {4, POINT, OBJECT, "com/example/Point", point_fields, 3, 4 + 4 + 8},
        {5, POINTS, OBJECT, "[Lcom/example/Point;", NULL, 0, 0},
    };
    const unsigned nclasses = sizeof classes / sizeof classes[0];
    for (unsigned i = 0; i < nclasses; i++) {
        hw_utf8z(w, classes[i].serial, classes[i].name);
        hw_load_class(w, classes[i].serial, classes[i].id, 1, classes[i].serial);
    }

    /* readers without it compute a summary, which VisualVM does from the
     * dump's System properties, absent here */
    hw_heap_summary(w, 160, 6, 160, 6);

    hw_heap_begin(w);
    for (unsigned i = 0; i < nclasses; i++) {
        hw_class c = {.class_id = classes[i].id, .trace_serial = 1,
                      .super_id = classes[i].super, .instance_size = classes[i].size,
                      .nfields = classes[i].nfields, .fields = classes[i].fields};
        hw_class_dump(w, &c);
    }
    for (unsigned i = 0; i < 4; i++) /* sticky: Object, String, byte[], Point */
        hw_root(w, HPROF_GC_ROOT_STICKY_CLASS, classes[i].id, 0, 0, 0);
    hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, ARRAY, 0, 0, 0x9000);
    hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, TEXT, 0, 0, 0x9001);

    const char *text = "hello, hprof";
    hw_prim_array_dump(w, TEXT + 1, 1, HPROF_TYPE_BYTE, (uint32_t)strlen(text), text);
    hw_instance_begin(w, TEXT, 1, STRING, 8 + 1); /* value, coder (0: Latin-1) */
    hw_put_id(w, TEXT + 1);
    hw_put_u1(w, 0);
    hw_sub_end(w);

    hprof_id points[4] = {0}; /* the last one stays null */
    for (uint32_t i = 0; i < 3; i++) {
        points[i] = FIRST_POINT + 16 * i;
        hw_instance_begin(w, points[i], 1, POINT, 4 + 4 + 8);
        hw_put_u4(w, i);
        hw_put_u4(w, 10 * i);
        hw_put_id(w, i == 0 ? TEXT : 0);
        hw_sub_end(w);
    }
    hw_obj_array_dump(w, ARRAY, 1, POINTS, 4, points);
    hw_heap_end(w);

    char msg[256];
    if (hw_writer_close(w, msg, sizeof msg)) { /* the first error, if any */
        fprintf(stderr, "writer_demo: %s\n", msg);
        return 1;
    }
    return 0;
}
