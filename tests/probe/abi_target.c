/* A tiny engine that reports its operations through llmscope's probe C ABI. Each round runs
 * 0_Linear (y = x W + b, x 2x3, W 3x2) then 1_Relu (z = max(y, 0)); x changes per round. */
#include <stdio.h>

#include "llmscope_probe.h"

int main(void)
{
    const int probe = llmscope_probe_version ? llmscope_probe_version() : 0;
    const float w[6] = {0.5f, -1.0f, 0.25f, 2.0f, -0.75f, 1.5f};
    const float b[2] = {0.5f, -0.25f};
    const int64_t dx[2] = {2, 3}, dw[2] = {3, 2}, db[1] = {2}, dy[2] = {2, 2};
    for (int round = 0; round < 3; ++round) {
        float x[6], y[4], z[4];
        for (int i = 0; i < 6; ++i)
            x[i] = ((float)i - 2.5f) * (float)(round + 1) * 0.5f;
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c) {
                float s = b[c];
                for (int k = 0; k < 3; ++k)
                    s += x[r * 3 + k] * w[k * 2 + c];
                y[r * 2 + c] = s;
            }
        for (int i = 0; i < 4; ++i)
            z[i] = y[i] > 0 ? y[i] : 0;
        if (probe) {
            llmscope_probe_begin_round();
            if (llmscope_probe_version() >= 2) { /* what runs each op, with which parameters */
                llmscope_probe_op_info("0_Linear", "my-cpu", "{\"bias\":true,\"transpose_b\":false}");
                llmscope_probe_op_info("1_Relu", "my-cpu", NULL);
                printf("bad op info: %d\n", llmscope_probe_op_info("1_Relu", "my-cpu", "[not an object"));
            }
            if (llmscope_probe_wants("0_Linear", 1, 1) == 1) {
                llmscope_probe_tensor("0_Linear", 1, 1, 0, LLMSCOPE_FLOAT32, dx, 2, x, sizeof x);
                llmscope_probe_tensor("0_Linear", 1, 1, 1, LLMSCOPE_FLOAT32, dw, 2, w, sizeof w);
                llmscope_probe_tensor("0_Linear", 1, 1, 2, LLMSCOPE_FLOAT32, db, 1, b, sizeof b);
            }
            llmscope_probe_tensor("0_Linear", 0, 0, 0, LLMSCOPE_FLOAT32, dy, 2, y, sizeof y);
            llmscope_probe_tensor("1_Relu", 1, 1, 0, LLMSCOPE_FLOAT32, dy, 2, y, sizeof y);
            llmscope_probe_tensor("1_Relu", 0, 0, 0, LLMSCOPE_FLOAT32, dy, 2, z, sizeof z);
            /* A wrong size is refused, not written and not fatal. */
            printf("bad call: %d\n", llmscope_probe_tensor("1_Relu", 0, 0, 1, LLMSCOPE_FLOAT32, dy, 2, z, 3));
            llmscope_probe_end_round();
        }
        printf("round %d: %g %g %g %g\n", round, z[0], z[1], z[2], z[3]);
    }
    printf("probe: %s\n", probe ? "active" : "absent");
    return 0;
}
