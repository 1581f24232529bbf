/* pmusim record --json read back by a real JSON parser (json-glib): the
 * samples' ip values (skid 1 moves the overflow at 0x401020 to the next
 * instruction, 0x401000, except for the last sample, which the trace ends).
 *
 *   test-record-json PMUSIM SOURCE_ROOT
 *
 * Built only when json-glib is found (tests/unit/frontdoor/meson.build). */
#include <CUnit/Basic.h>
#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdio.h>

static const char *pmusim, *root;

static void test_samples_ip(void)
{
    char *argv[] = {(char *)pmusim, "record", "--json", "-e", "wsm::INST_RETIRED:ANY_P", "-c",
                    "50", "traces/samples/wsm_loop.txt", NULL};
    char *out = NULL;
    int status = -1;
    CU_ASSERT_TRUE_FATAL(g_spawn_sync(root, argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                                      &out, NULL, &status, NULL));
    CU_ASSERT_TRUE(g_spawn_check_wait_status(status, NULL));
    JsonParser *p = json_parser_new();
    GError *e = NULL;
    gboolean parsed = json_parser_load_from_data(p, out, -1, &e);
    if (!parsed)
        fprintf(stderr, "record --json: %s\n", e->message);
    CU_ASSERT_TRUE_FATAL(parsed);
    JsonNode *rootn = json_parser_get_root(p);
    CU_ASSERT_TRUE_FATAL(JSON_NODE_HOLDS_OBJECT(rootn));
    JsonArray *samples = json_object_get_array_member(json_node_get_object(rootn), "samples");
    CU_ASSERT_PTR_NOT_NULL_FATAL(samples);
    CU_ASSERT_EQUAL_FATAL(json_array_get_length(samples), 4);
    static const char *want[] = {"0x401000", "0x401000", "0x401000", "0x401020"};
    for (guint i = 0; i < 4; i++)
        CU_ASSERT_STRING_EQUAL(
            json_object_get_string_member(json_array_get_object_element(samples, i), "ip"),
            want[i]);
    g_object_unref(p);
    g_free(out);
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
    CU_pSuite s = CU_add_suite("record-json", NULL, NULL);
    CU_add_test(s, "samples ip", test_samples_ip);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failures ? 1 : 0;
}
