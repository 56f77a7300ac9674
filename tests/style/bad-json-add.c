/* bad-json-add.c — a sample for tests/style/run.sh: JSON adds that can lose
 * an item or a field without a word. */
/* expect: 9 JSON-ADD */
/* expect: 10 JSON-ADD */
/* expect: 11 JSON-ADD */
#include <cjson/cJSON.h>
static void sample(cJSON *o, cJSON *item)
{
  cJSON_AddItemToObject(o, "a", item);
  if(!cJSON_ReplaceItemInObjectCaseSensitive(o, "b", cJSON_CreateNull())) return;
  cJSON_AddStringToObject(o, "c", "lost when memory runs out");
}
