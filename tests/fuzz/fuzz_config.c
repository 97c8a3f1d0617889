// SPDX-License-Identifier: MIT
// The config parser and every kind's checks on arbitrary text (cd_config_parse, as `cdlab run`):
// a rejected config gets a message naming the file, an accepted one has a name and points.
#include "cd_harness_cli.h"
#include "cd_kinds.h"
#include "fuzz_util.h"

#include <string.h>

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cd_config c;
    char err[2048];
    err[0] = '\0';
    if (cd_config_parse(cd_kinds(), "fuzz.ini", (const char *)data, size, &c, err, sizeof err) == 0) {
        FUZZ_CHECK(cd_config_text(&c, "experiment", "name")[0] != '\0', "accepted without a name");
        FUZZ_CHECK(cd_plan_size(&c) >= 1, "accepted with no point");
        cd_config_free(&c);
    } else {
        FUZZ_CHECK(strncmp(err, "fuzz.ini", 8) == 0, "the message does not name the file: '%s'", err);
    }
    return 0;
}
