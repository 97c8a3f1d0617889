// SPDX-License-Identifier: MIT
// The config parser and every kind's checks on arbitrary text (cd_config_parse, as `cdlab run`).
#include "cd_harness.h"
#include "cd_kinds.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cd_config c;
    char err[2048];
    if (cd_config_parse(cd_kinds(), "fuzz.ini", (const char *)data, size, &c, err, sizeof err) == 0) cd_config_free(&c);
    return 0;
}
