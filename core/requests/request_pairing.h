// Two dumps compared request against request: each side chosen by request number or sequence
// (llama-server's slot) is replaced by its request's view (request_view.h), and where the two
// batched their positions differently (a prompt split over micro-batches shared with another
// slot against a prompt computed at once) the test side is lined up in golden's rounds by
// position (spread/batch_alignment.h).
#pragma once
#include <string>
#include <vector>

#include "core/requests/requests.h"

namespace llmscope {

struct RequestPairing {
    std::string golden, my; // what to compare: the views, or the dumps as given
    std::vector<std::string> notes; // what was chosen, cut and lined up, for the summary
};

// The sides to compare; workDir receives the views. Nothing chosen on either side: the dumps
// as given, no notes. Throws Error (a side without such a request, a file that cannot be read).
RequestPairing pairRequests(const std::string &golden, const RequestChoice &goldenChoice, const std::string &my,
                            const RequestChoice &myChoice, const std::string &workDir);

} // namespace llmscope
