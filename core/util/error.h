// One exception type for everything core rejects; the message names the offending part.
#pragma once
#include <stdexcept>
#include <string>

namespace llmscope {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace llmscope
