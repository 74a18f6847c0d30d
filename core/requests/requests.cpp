#include "core/requests/requests.h"

#include <algorithm>

#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {

std::vector<Request> requestsOf(const std::map<int64_t, TokenRecord> &records)
{
    std::vector<Request> out;
    std::map<int32_t, size_t> open; // sequence -> its request in out now
    for (const auto &[round, r] : records) {
        if (r.sequences.empty() || r.sequences.size() != r.tokens.size())
            continue;
        // This round's sequences in the order their first token comes, with their positions.
        std::vector<std::pair<int32_t, std::vector<int32_t>>> bySequence;
        for (size_t i = 0; i < r.sequences.size(); ++i) {
            const int32_t seq = r.sequences[i]; // (clang 14 lambdas take no structured binding)
            auto it =
                std::find_if(bySequence.begin(), bySequence.end(), [seq](const auto &e) { return e.first == seq; });
            if (it == bySequence.end())
                it = bySequence.insert(bySequence.end(), {r.sequences[i], {}});
            it->second.push_back(r.positions.size() == r.tokens.size() ? r.positions[i] : -1);
        }
        const bool shared = bySequence.size() > 1;
        for (const auto &[seq, positions] : bySequence) {
            const int32_t first = *std::min_element(positions.begin(), positions.end());
            const int32_t last = *std::max_element(positions.begin(), positions.end());
            auto o = open.find(seq);
            // Positions unknown (-1) never start a request by themselves.
            if (o == open.end() || (first >= 0 && first <= out[o->second].lastPosition)) {
                Request q;
                q.number = int(out.size()) + 1;
                q.sequence = seq;
                q.firstPosition = first;
                q.lastPosition = last;
                out.push_back(q);
                o = open.insert_or_assign(seq, out.size() - 1).first;
            }
            Request &q = out[o->second];
            q.rounds.push_back(round);
            q.lastPosition = std::max(q.lastPosition, last);
            q.tokens += positions.size();
            q.shared = q.shared || shared;
        }
    }
    return out;
}

bool servesRequests(const std::vector<Request> &requests)
{
    return requests.size() > 1 || (requests.size() == 1 && requests.front().sequence != 0);
}

RequestChoice parseRequestChoice(const std::string &option, const std::string &value, bool bySequence)
{
    const auto v = parseInt(trim(value));
    RequestChoice c;
    if (bySequence) {
        if (!v || *v < 0 || *v > 1000000)
            throw Error(option + ": '" + value +
                        "' is not a sequence id (llama-server's slot; 0 for a program that "
                        "decodes one sequence)");
        c.sequence = int32_t(*v);
    } else {
        if (!v || *v < 1 || *v > 1000000)
            throw Error(option + ": '" + value +
                        "' is not a request number (1 for the first; `llmscope info DUMP` "
                        "lists them)");
        c.request = int(*v);
    }
    return c;
}

const Request &chooseRequest(const std::vector<Request> &requests, const RequestChoice &choice, const std::string &dump)
{
    if (requests.empty())
        throw Error(dump +
                    ": its rounds record no sequences (dumped by an earlier llmscope, or the program decodes "
                    "without libllama's llama_decode); dump it again to choose a request");
    if (choice.request > 0) {
        if (choice.request > int(requests.size()))
            throw Error(dump + " holds " + std::to_string(requests.size()) + " request(s); there is no request " +
                        std::to_string(choice.request) + " (`llmscope info` lists them)");
        return requests[size_t(choice.request - 1)];
    }
    std::vector<const Request *> of;
    for (const Request &r : requests)
        if (r.sequence == choice.sequence)
            of.push_back(&r);
    if (of.empty())
        throw Error(dump + ": no round computed sequence " + std::to_string(choice.sequence) +
                    " (`llmscope info` lists "
                    "the requests and their sequences)");
    if (of.size() > 1) {
        std::string numbers;
        for (const Request *r : of)
            numbers += (numbers.empty() ? "" : ", ") + std::to_string(r->number);
        throw Error(dump + ": sequence " + std::to_string(choice.sequence) + " served " + std::to_string(of.size()) +
                    " requests (" + numbers + "); choose one by number (--golden-request or --my-request)");
    }
    return *of.front();
}

std::string describeRequest(const Request &r)
{
    auto span = [](int64_t a, int64_t b) {
        return a == b ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(b);
    };
    std::string s = "request " + std::to_string(r.number) + ": sequence " + std::to_string(r.sequence) +
        ", positions " + (r.lastPosition < 0 ? std::string("not recorded") : span(r.firstPosition, r.lastPosition)) +
        ", " + std::to_string(r.tokens) + " token(s) in " + std::to_string(r.rounds.size()) + " round(s) " +
        span(r.rounds.front(), r.rounds.back());
    if (r.shared)
        s += " (some shared with other sequences)";
    return s;
}

} // namespace llmscope
