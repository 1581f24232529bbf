/* pmusim stat -j read back by a real JSON parser (json-glib): every line is
 * one object with perf's keys; a <not in trace> counter has "counter-value"
 * null and its status; a multiplexed one its exact count and error; derived
 * metrics, --per-thread and --dump-regs objects parse too.
 *
 *   stat-json-parse PMUSIM SOURCE_ROOT
 *
 * Built only when json-glib is found (tests/golden/core/meson.build). */
#include <CUnit/Basic.h>
#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

static const char *pmusim, *root;

/* Runs `pmusim stat -j ARGS traces/samples/wsm_loop.txt` (or the trace in
 * ARGS when `trace` is NULL) and parses each line; NULL when it fails. */
static GPtrArray *objects(const char *args, const char *trace)
{
    char *cmd = g_strdup_printf("'%s' stat -j %s %s", pmusim, args, trace ? trace : "");
    char **argv = NULL, *out = NULL;
    int status = -1;
    GPtrArray *objs = NULL;
    if (!g_shell_parse_argv(cmd, NULL, &argv, NULL))
        goto done;
    if (!g_spawn_sync(root, argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                      &status, NULL) ||
        !g_spawn_check_wait_status(status, NULL)) {
        fprintf(stderr, "%s: failed\n", cmd);
        goto done;
    }
    objs = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);
    char **lines = g_strsplit(out, "\n", -1);
    for (char **l = lines; *l; l++) {
        if (!**l)
            continue;
        JsonParser *p = json_parser_new();
        GError *e = NULL;
        if (!json_parser_load_from_data(p, *l, -1, &e) ||
            !JSON_NODE_HOLDS_OBJECT(json_parser_get_root(p))) {
            fprintf(stderr, "%s: not one JSON object: %s (%s)\n", cmd, *l,
                    e ? e->message : "not an object");
            g_clear_error(&e);
            g_object_unref(p);
            g_ptr_array_unref(objs);
            objs = NULL;
            break;
        }
        g_ptr_array_add(objs, json_object_ref(json_node_get_object(json_parser_get_root(p))));
        g_object_unref(p);
    }
    g_strfreev(lines);
done:
    g_strfreev(argv);
    g_free(out);
    g_free(cmd);
    return objs;
}

#define WSM "traces/samples/wsm_loop.txt"

/* The counter rows (objects with "event"), in order. */
static GPtrArray *rows_of(GPtrArray *objs)
{
    GPtrArray *rows = g_ptr_array_new();
    for (guint i = 0; objs && i < objs->len; i++)
        if (json_object_has_member(g_ptr_array_index(objs, i), "event"))
            g_ptr_array_add(rows, g_ptr_array_index(objs, i));
    return rows;
}

static const char *str_member(JsonObject *o, const char *key)
{
    JsonNode *n = json_object_get_member(o, key);
    return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
               ? json_node_get_string(n)
               : NULL;
}

static void test_plain(void)
{
    GPtrArray *objs = objects("-e cycles,instructions,r000e", WSM);
    CU_ASSERT_PTR_NOT_NULL_FATAL(objs);
    GPtrArray *rows = rows_of(objs);
    CU_ASSERT_EQUAL_FATAL(rows->len, 3);
    CU_ASSERT_STRING_EQUAL(str_member(g_ptr_array_index(rows, 0), "counter-value"),
                           "200.000000");
    CU_ASSERT_STRING_EQUAL(str_member(g_ptr_array_index(rows, 1), "counter-value"),
                           "200.000000");
    JsonNode *v = json_object_get_member(g_ptr_array_index(rows, 2), "counter-value");
    CU_ASSERT_TRUE(v && JSON_NODE_HOLDS_NULL(v));
    static const char *keys[] = {"unit", "event", "event-runtime", "pcnt-running", "status"};
    for (guint i = 0; i < rows->len; i++)
        for (size_t k = 0; k < G_N_ELEMENTS(keys); k++)
            CU_ASSERT_TRUE(json_object_has_member(g_ptr_array_index(rows, i), keys[k]));
    JsonObject *insn = g_ptr_array_index(rows, 1);
    CU_ASSERT_STRING_EQUAL(str_member(insn, "metric-unit"), "insn per cycle");
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double_member(insn, "metric-value"), 1.0, 1e-9);
    CU_ASSERT_STRING_EQUAL(str_member(g_ptr_array_index(rows, 2), "status"), "not-in-trace");
    g_ptr_array_unref(rows);
    g_ptr_array_unref(objs);
}

static void test_multiplexed(void)
{
    GPtrArray *objs = objects("--mux-interval 60 -e r01c2,r02c2,r00c4,r00c5,r010b,r0151", WSM);
    CU_ASSERT_PTR_NOT_NULL_FATAL(objs);
    GPtrArray *rows = rows_of(objs);
    CU_ASSERT_EQUAL_FATAL(rows->len, 6);
    JsonObject *last = g_ptr_array_index(rows, 5);
    /* L1D:REPL ran 80 of 200 cycles and saw 1 of the 2 misses: 2.5 -> 3 */
    CU_ASSERT_STRING_EQUAL(str_member(last, "counter-value"), "3.000000");
    CU_ASSERT_EQUAL(json_object_get_int_member(last, "exact-value"), 2);
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double_member(last, "pcnt-running"), 40.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double_member(last, "error-pcnt"), 50.0, 1e-9);
    g_ptr_array_unref(rows);
    g_ptr_array_unref(objs);
}

static void test_dump_regs(void)
{
    GPtrArray *objs = objects("--dump-regs -e instructions", WSM);
    CU_ASSERT_PTR_NOT_NULL_FATAL(objs);
    gboolean found = FALSE;
    for (guint i = 0; i < objs->len; i++) {
        JsonObject *o = g_ptr_array_index(objs, i);
        const char *reg = str_member(o, "register");
        if (reg && strcmp(reg, "IA32_FIXED_CTR0") == 0) {
            found = TRUE;
            CU_ASSERT_STRING_EQUAL(str_member(o, "value"), "0xc8"); /* 200 */
        }
    }
    CU_ASSERT_TRUE(found);
    g_ptr_array_unref(objs);
}

/* Derived metrics as extra objects, and --per-thread's keys. */
static void test_metrics_and_threads(void)
{
    GPtrArray *objs = objects("--topdown", "tests/golden/core/check/wsm_topdown.txt");
    CU_ASSERT_PTR_NOT_NULL_FATAL(objs);
    CU_ASSERT_EQUAL_FATAL(objs->len, 5); /* cycles + 2 metric objects + 2 uop rows */
    JsonObject *bad = g_ptr_array_index(objs, 1);
    CU_ASSERT_STRING_EQUAL(str_member(bad, "metric-unit"), "bad speculation");
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double_member(bad, "metric-value"), 7.0, 1e-9);
    g_ptr_array_unref(objs);

    objs = objects("--per-thread", "traces/samples/mont_2threads.txt");
    CU_ASSERT_PTR_NOT_NULL_FATAL(objs);
    CU_ASSERT_EQUAL_FATAL(objs->len, 4);
    JsonObject *t1 = g_ptr_array_index(objs, 1);
    CU_ASSERT_STRING_EQUAL(str_member(t1, "thread"), "thread-1");
    CU_ASSERT_STRING_EQUAL(str_member(t1, "counter-value"), "40.000000");
    CU_ASSERT_TRUE(json_object_get_boolean_member(t1, "per-core"));
    CU_ASSERT_FALSE(json_object_has_member(g_ptr_array_index(objs, 3), "per-core"));
    g_ptr_array_unref(objs);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s PMUSIM SOURCE_ROOT\n", argv[0]);
        return 2;
    }
    pmusim = argv[1];
    root = argv[2];
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("stat-json-parse", NULL, NULL);
    CU_add_test(s, "plain rows and not-in-trace", test_plain);
    CU_add_test(s, "multiplexed exact count", test_multiplexed);
    CU_add_test(s, "dump-regs objects", test_dump_regs);
    CU_add_test(s, "metrics and per-thread", test_metrics_and_threads);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failures ? 1 : 0;
}
