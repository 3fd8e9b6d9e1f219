/*
 * hw_format.c: human-readable names of HPROF tags, sub-tags and basic types,
 * for tools and error messages. The numbers live in hprof_format.h only.
 */
#include "hprof/hprof_format.h"

const char *hprof_tag_name(unsigned tag)
{
    switch (tag) {
    case HPROF_TAG_UTF8: return "UTF8";
    case HPROF_TAG_LOAD_CLASS: return "LOAD CLASS";
    case HPROF_TAG_UNLOAD_CLASS: return "UNLOAD CLASS";
    case HPROF_TAG_FRAME: return "FRAME";
    case HPROF_TAG_TRACE: return "TRACE";
    case HPROF_TAG_ALLOC_SITES: return "ALLOC SITES";
    case HPROF_TAG_HEAP_SUMMARY: return "HEAP SUMMARY";
    case HPROF_TAG_START_THREAD: return "START THREAD";
    case HPROF_TAG_END_THREAD: return "END THREAD";
    case HPROF_TAG_HEAP_DUMP: return "HEAP DUMP";
    case HPROF_TAG_CPU_SAMPLES: return "CPU SAMPLES";
    case HPROF_TAG_CONTROL_SETTINGS: return "CONTROL SETTINGS";
    case HPROF_TAG_HEAP_DUMP_SEGMENT: return "HEAP DUMP SEGMENT";
    case HPROF_TAG_HEAP_DUMP_END: return "HEAP DUMP END";
    default: return 0;
    }
}

const char *hprof_sub_name(unsigned sub)
{
    switch (sub) {
    case HPROF_GC_ROOT_JNI_GLOBAL: return "ROOT JNI GLOBAL";
    case HPROF_GC_ROOT_JNI_LOCAL: return "ROOT JNI LOCAL";
    case HPROF_GC_ROOT_JAVA_FRAME: return "ROOT JAVA FRAME";
    case HPROF_GC_ROOT_NATIVE_STACK: return "ROOT NATIVE STACK";
    case HPROF_GC_ROOT_STICKY_CLASS: return "ROOT STICKY CLASS";
    case HPROF_GC_ROOT_THREAD_BLOCK: return "ROOT THREAD BLOCK";
    case HPROF_GC_ROOT_MONITOR_USED: return "ROOT MONITOR USED";
    case HPROF_GC_ROOT_THREAD_OBJ: return "ROOT THREAD OBJECT";
    case HPROF_GC_CLASS_DUMP: return "CLASS DUMP";
    case HPROF_GC_INSTANCE_DUMP: return "INSTANCE DUMP";
    case HPROF_GC_OBJ_ARRAY_DUMP: return "OBJ ARRAY DUMP";
    case HPROF_GC_PRIM_ARRAY_DUMP: return "PRIM ARRAY DUMP";
    case HPROF_GC_ROOT_INTERNED_STRING: return "ROOT INTERNED STRING";
    case HPROF_GC_ROOT_FINALIZING: return "ROOT FINALIZING";
    case HPROF_GC_ROOT_DEBUGGER: return "ROOT DEBUGGER";
    case HPROF_GC_ROOT_REFERENCE_CLEANUP: return "ROOT REFERENCE CLEANUP";
    case HPROF_GC_ROOT_VM_INTERNAL: return "ROOT VM INTERNAL";
    case HPROF_GC_ROOT_JNI_MONITOR: return "ROOT JNI MONITOR";
    case HPROF_GC_ROOT_UNREACHABLE: return "UNREACHABLE";
    case HPROF_GC_HEAP_DUMP_INFO: return "HEAP DUMP INFO";
    case HPROF_GC_ROOT_UNKNOWN: return "ROOT UNKNOWN";
    default: return 0;
    }
}

const char *hprof_type_name(unsigned type)
{
    switch (type) {
    case HPROF_TYPE_OBJECT: return "object";
    case HPROF_TYPE_BOOLEAN: return "boolean";
    case HPROF_TYPE_CHAR: return "char";
    case HPROF_TYPE_FLOAT: return "float";
    case HPROF_TYPE_DOUBLE: return "double";
    case HPROF_TYPE_BYTE: return "byte";
    case HPROF_TYPE_SHORT: return "short";
    case HPROF_TYPE_INT: return "int";
    case HPROF_TYPE_LONG: return "long";
    default: return 0;
    }
}
