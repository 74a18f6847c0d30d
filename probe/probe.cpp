#include "probe/probe.h"
#include "probe/ggml_api.h"

#include <algorithm>
#include <cstring>

#include <cstdio>
#include <cstdlib>

#include <sys/stat.h>
#include <unistd.h>

#include "core/select/dynamic_config.h"
#include "probe/buffer_pool.h"
#include "probe/decode_batches.h"
#include "probe/run_identity.h"
#include "probe/weight_cache.h"

namespace llmscope::probe {

Probe &Probe::get()
{
    static Probe *p = new Probe; // never destroyed, see the header
    return *p;
}

Probe::Probe() : m_config(readProbeConfig())
{
    m_status.pid = ::getpid();
    m_status.command = commandLine();
    m_status.host = hostId();
    m_status.keepFusion = m_config.keepFusion;
    m_status.environment = steeringEnvironment();
    m_status.workingDirectory = workingDirectory();
    if (!m_config.error.empty())
        warn("invalid setting (" + m_config.error + "); the probe stays inactive");
    if (m_config.active) {
        try {
            m_writer = std::make_unique<WriterThread>(
                m_config.root, m_config.queueBytes, [this](const std::string &m) { warn(m); },
                std::chrono::milliseconds(20), m_config.symlink);
            m_writer->setNanInfOnly(m_config.nanInfOnly);
        } catch (const std::exception &e) {
            warn(std::string("cannot write the dump: ") + e.what() + "; the probe stays inactive");
            m_config.active = false;
        }
    }
    m_selection = std::make_shared<Selection>(m_config.selection);
    if (m_config.active && !m_config.followTokens.empty()) {
        try {
            m_goldenTokens = readTokenRecords(m_config.followTokens);
            m_following = !m_goldenTokens.empty();
            if (!m_following)
                warn("--follow-tokens: '" + m_config.followTokens + "' records no tokens; the program's own are used");
        } catch (const std::exception &e) {
            warn(std::string("--follow-tokens: ") + e.what() + "; the program's own tokens are used");
        }
    }
    m_active = m_config.active;
    if (m_writer && !m_config.liveSocket.empty()) // what the app is told as rounds are written
        m_writer->onRoundWritten([this](int64_t round, std::vector<live::OpStats> &&stats, uint64_t tensors,
                                        uint64_t bytes, uint64_t skipped) {
            if (LiveChannel *l = live()) {
                if (!stats.empty())
                    l->sendRound(live::RoundStats{round, std::move(stats)});
                live::Counters c;
                c.tensors = tensors;
                c.bytes = bytes;
                c.skipped = skipped;
                l->sendCounters(c);
            }
        });
    if (m_active) {
        // Everything queued reaches the disk when the target exits normally.
        std::atexit([] {
            Probe &p = Probe::get();
            // First: a thread still inside a graph (the program called exit() without waiting
            // for it) hands over nothing more, so its round is left out, never half written.
            p.m_writer->acceptOnlyThisThread();
            std::lock_guard lock(p.mutex);
            for (auto &entry : p.scheds()) {
                SchedState &s = entry.second;
                const std::thread::id computing = s.computing.load(std::memory_order_acquire);
                if (computing == std::thread::id{} || computing == std::this_thread::get_id()) {
                    p.handOver(s);
                } else if (s.mode.dumping() && !p.m_writer->tookWholeRound(s.round)) {
                    p.noteStopped(s.round);
                    p.warn("the program exited while another thread was computing round " + std::to_string(s.round) +
                           "; that round is left out (what it handed over before is in the dump)");
                }
            }
            p.m_writer->drain();
            WeightCache::get().flush(); // what the writer read of a model file, for the next run
            if (LiveChannel *l = p.live()) // a moment for the app to hear the end, never longer
                l->finish(true, std::chrono::milliseconds(200));
            // Last, after everything queued: a channel that failed while saying goodbye is in it.
            p.m_writer->close(p.status(true));
        });
    }
}

void Probe::warn(const std::string &msg)
{
    {
        std::lock_guard lock(m_statusMutex);
        if (!m_warned.insert(msg).second)
            return; // said already
        if (m_status.warnings.size() < 20)
            m_status.warnings.push_back(msg);
    }
    const int n = m_warnings++;
    if (LiveChannel *l = live()) { // the window's console: enough to see what goes on, never a flood
        if (n < kLiveWarnings)
            l->send(live::Warning{msg});
        else if (n == kLiveWarnings)
            l->send(live::Warning{"further warnings are left out; the counters and the dump's llmscope/ status "
                                  "file have the totals"});
    }
    if (m_config.quiet)
        return;
    if (n < 10)
        std::fprintf(stderr, "[llmscope] %s\n", msg.c_str());
    else if (n == 10)
        std::fprintf(stderr, "[llmscope] further warnings are left out; see the dump's llmscope/ status file\n");
}

void Probe::disable(const std::string &why)
{
    if (m_active.exchange(false)) {
        warn(why + "; passing everything through from now on");
    }
}

void Probe::loadConfigFile()
{
    struct stat st {};
    if (::stat(m_config.configFile.c_str(), &st) != 0) {
        if (m_configError != "missing") {
            m_configError = "missing";
            warn("dynamic config '" + m_config.configFile + "' is missing; keeping the current selection");
        }
        return;
    }
    const int64_t mtime = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec + st.st_size;
    if (mtime == m_configMtime)
        return;
    m_configMtime = mtime;
    try {
        DynamicConfig dc = loadDynamicConfig(m_config.configFile, m_config.selection);
        for (const auto &w : dc.warnings)
            warn("dynamic config: " + w);
        m_selection = std::make_shared<Selection>(std::move(dc.selection));
        m_configError.clear();
    } catch (const std::exception &e) {
        m_configError = e.what();
        warn(std::string("dynamic config ignored: ") + e.what() + "; keeping the current selection");
    }
}

void Probe::startLive(const std::string &engine, const std::string &device)
{
    if (m_config.liveSocket.empty() || live() || m_liveStarted)
        return;
    m_liveStarted = true;
    live::Hello hello;
    hello.pid = ::getpid();
    hello.engine = engine;
    hello.device = device;
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    hello.program = n > 0 ? std::string(exe, size_t(n)) : std::string();
    try {
        m_live.store(new LiveChannel(m_config.liveSocket, std::move(hello), [this](const std::string &m) { warn(m); }),
                     std::memory_order_release);
    } catch (const std::exception &e) {
        warn(std::string("cannot start the live channel (") + e.what() + "); dumping on without the app");
    }
}

std::shared_ptr<const Selection> Probe::selectionForRound(int64_t round)
{
    if (LiveChannel *l = live(); l && l->hasSelect()) {
        if (const auto select = l->takeSelect()) {
            live::Ack ack{select->seq, round, ""};
            try {
                m_selection = std::make_shared<Selection>(live::selectionFrom(*select, m_config.selection));
            } catch (const std::exception &e) {
                ack.error = e.what();
            }
            l->send(ack);
        }
    }
    if (!m_config.configFile.empty()) {
        const auto now = std::chrono::steady_clock::now();
        const bool first = m_lastConfigCheck == std::chrono::steady_clock::time_point{};
        if (first || now - m_lastConfigCheck >= std::chrono::milliseconds(m_config.configIntervalMs)) {
            m_lastConfigCheck = now;
            loadConfigFile();
        }
    }
    return m_selection;
}

void Probe::noteRound(int64_t round, bool dumping, uint64_t opsSeen, uint64_t opsSelected, bool wholeGraph,
                      bool inlineRead, uint64_t topoKey, uint64_t pieces)
{
    if (LiveChannel *l = live())
        l->sendRound(live::Round{round, topoKey, dumping,
                                 dumping ? (inlineRead       ? "inline"
                                                : wholeGraph ? "graph"
                                                             : "node")
                                         : "",
                                 opsSelected});
    std::unique_lock note(m_statusMutex);
    ++m_status.rounds;
    if (dumping) {
        ++m_status.roundsDumped;
        m_status.roundsWholeGraph += wholeGraph ? 1 : 0;
        m_status.roundsInline += inlineRead ? 1 : 0;
        m_status.pieces += pieces;
        if (m_status.firstDumped < 0)
            m_status.firstDumped = round;
        m_status.lastDumped = round;
        m_status.opsSelected = std::max(m_status.opsSelected, opsSelected);
        m_statusDirty = true;
    }
    if (opsSeen > m_status.opsSeen) {
        m_status.opsSeen = opsSeen;
        m_statusDirty = true;
    }
    const auto now = std::chrono::steady_clock::now();
    const bool due = m_status.rounds == 1 || (m_statusDirty && now - m_lastStatus > std::chrono::milliseconds(250));
    if (due)
        m_lastStatus = now;
    live::Counters counters;
    counters.rounds = m_status.rounds;
    counters.roundsDumped = m_status.roundsDumped;
    counters.opsSeen = m_status.opsSeen;
    counters.opsSelected = m_status.opsSelected;
    note.unlock();
    if (LiveChannel *l = live())
        l->sendCounters(counters);
    if (due)
        writeStatus(false);
}

void Probe::noteWatchChange(const std::string &what)
{
    std::lock_guard lock(m_statusMutex);
    if (m_status.watchChanges.size() < ProbeStatus::kWatchListed)
        m_status.watchChanges.push_back(what);
    m_statusDirty = true;
}

void Probe::noteModel(const std::string &path)
{
    {
        std::lock_guard lock(m_statusMutex);
        for (const auto &m : m_status.models)
            if (m == path)
                return;
        m_status.models.push_back(path);
        m_statusDirty = true;
    }
}

void Probe::noteBackends(const std::vector<std::string> &names)
{
    std::lock_guard lock(m_statusMutex);
    for (const std::string &n : names)
        if (std::find(m_status.backends.begin(), m_status.backends.end(), n) == m_status.backends.end()) {
            m_status.backends.push_back(n);
            m_statusDirty = true;
        }
}

void Probe::noteContext(std::vector<std::string> settings)
{
    if (settings.empty())
        return; // a graph that reads no cache says nothing of the context
    std::lock_guard lock(m_statusMutex);
    if (m_status.context != settings) {
        m_status.context = std::move(settings);
        m_statusDirty = true;
    }
}

void Probe::noteSampler(std::string setting)
{
    std::lock_guard lock(m_statusMutex);
    auto &s = m_status.sampling;
    if (s.size() < ProbeStatus::kSamplingListed && std::find(s.begin(), s.end(), setting) == s.end()) {
        s.push_back(std::move(setting));
        m_statusDirty = true;
    }
}

void Probe::noteStateCopy(StateCopy copy)
{
    std::lock_guard lock(m_statusMutex);
    if (m_status.stateCopies.size() < ProbeStatus::kStateCopiesListed)
        m_status.stateCopies.push_back(std::move(copy));
    else
        ++m_status.stateCopiesDropped; // said, so a reader never takes the list for all of them
    m_statusDirty = true;
}

void Probe::noteTokensReplaced()
{
    std::lock_guard lock(m_statusMutex);
    ++m_status.tokensReplaced;
    m_statusDirty = true;
}

std::shared_ptr<const std::vector<int32_t>> Probe::followTokens(int64_t round, ggml_cgraph *graph,
                                                                std::vector<int32_t> &sequences)
{
    const GgmlApi &api = ggml();
    if (!m_writer || !api.tensorGet)
        return {};
    // llama.cpp's token ids: the int32 leaf "inp_tokens" its first GET_ROWS reads (absent when
    // the program feeds embeddings).
    ggml_tensor *tokens = nullptr;
    const int n = api.graphNNodes(graph);
    for (int i = 0; i < n && !tokens; ++i) {
        ggml_tensor *node = api.graphNode(graph, i);
        if (node->op == GGML_OP_GET_ROWS && node->src[1] && node->src[1]->type == GGML_TYPE_I32 &&
            std::strcmp(node->src[1]->name, "inp_tokens") == 0)
            tokens = node->src[1];
    }
    if (!tokens || !tokens->buffer || tokens->ne[1] != 1 || tokens->ne[2] != 1 || tokens->ne[3] != 1)
        return {};
    std::vector<int32_t> ids(size_t(tokens->ne[0]));
    api.tensorGet(tokens, ids.data(), 0, ids.size() * sizeof(int32_t));
    // Their positions: the int32 leaf "inp_pos" a ROPE reads, one a token (a spread lines a
    // prompt computed at once up with the same tokens computed one by one by these).
    std::vector<int32_t> positions;
    for (int i = 0; i < n && positions.empty(); ++i) {
        ggml_tensor *node = api.graphNode(graph, i);
        ggml_tensor *pos = node->op == GGML_OP_ROPE ? node->src[1] : nullptr;
        if (pos && pos->type == GGML_TYPE_I32 && pos->buffer && std::strcmp(pos->name, "inp_pos") == 0 &&
            pos->ne[0] == tokens->ne[0] && pos->ne[1] == 1 && pos->ne[2] == 1 && pos->ne[3] == 1) {
            positions.resize(size_t(pos->ne[0]));
            api.tensorGet(pos, positions.data(), 0, positions.size() * sizeof(int32_t));
        }
    }
    // The tokens whose rows reach the logits: the int32 leaf "out_ids" ("inp_out_ids" in older
    // llama.cpp) the last layer's GET_ROWS reads, found from the graph's end.
    ggml_tensor *outIds = nullptr;
    for (int i = n - 1; i >= 0 && !outIds; --i) {
        ggml_tensor *node = api.graphNode(graph, i);
        ggml_tensor *o = node->op == GGML_OP_GET_ROWS ? node->src[1] : nullptr;
        if (o && o->type == GGML_TYPE_I32 &&
            (std::strcmp(o->name, "out_ids") == 0 || std::strcmp(o->name, "inp_out_ids") == 0))
            outIds = o;
    }
    std::vector<int32_t> outputs;
    if (outIds && outIds->buffer && outIds->ne[0] > 0 && outIds->ne[0] <= tokens->ne[0] && outIds->ne[1] == 1 &&
        outIds->ne[2] == 1 && outIds->ne[3] == 1) {
        outputs.resize(size_t(outIds->ne[0]));
        api.tensorGet(outIds, outputs.data(), 0, outputs.size() * sizeof(int32_t));
        if (std::any_of(outputs.begin(), outputs.end(), [&](int32_t k) { return k < 0 || k >= tokens->ne[0]; }))
            outputs.clear(); // not indices into this batch: not recorded
    }
    sequences = sequencesOfRound(ids, positions); // matched on the program's own tokens
    bool replaced = false;
    if (m_following) {
        const auto golden = m_goldenTokens.find(round);
        if (golden == m_goldenTokens.end() || golden->second.tokens.size() != ids.size() || !api.tensorSet) {
            m_following = false; // from here on the rounds are the program's own
            warn("--follow-tokens: round " + std::to_string(round) + " takes " + std::to_string(ids.size()) +
                 " token(s), " +
                 (golden == m_goldenTokens.end() ? std::string("and golden recorded no such round")
                                                 : "golden's took " + std::to_string(golden->second.tokens.size())) +
                 "; the program's own tokens are used from this round on, so later rounds are not comparable");
        } else {
            api.tensorSet(tokens, golden->second.tokens.data(), 0, ids.size() * sizeof(int32_t));
            replaced = golden->second.tokens != ids;
            ids = golden->second.tokens;
            noteTokensReplaced();
        }
    }
    m_writer->submitText(tokenRecordPath(::getpid(), round),
                         tokenRecordJson(round, ids, replaced, positions, sequences, outputs));
    return positions.empty() ? nullptr : std::make_shared<const std::vector<int32_t>>(std::move(positions));
}

void Probe::noteStopped(int64_t round)
{
    std::lock_guard note(m_statusMutex);
    if (std::find(m_status.stoppedRounds.begin(), m_status.stoppedRounds.end(), round) != m_status.stoppedRounds.end())
        return; // noted already (at exit, and by the thread that computed it)
    ++m_status.roundsStopped;
    if (m_status.stoppedRounds.size() < ProbeStatus::kStoppedListed)
        m_status.stoppedRounds.push_back(round);
    m_statusDirty = true;
}

void Probe::handOver(SchedState &s)
{
    if (!s.capture.active())
        return;
    if (!s.capture.empty() && m_writer)
        m_writer->submitRound(s.capture.finish());
    else
        dropRound(s);
}

void Probe::dropRound(SchedState &s)
{
    if (!s.capture.active())
        return;
    CapturedRound r = s.capture.finish();
    for (uint64_t key : r.firstWeights) // never written: taken again at their next sight
        s.weightsSent.erase(key);
    r.forgetWeightReads();
    giveBuffer(std::move(r.arena));
}

void takeItems(Probe &p, SchedState &s, std::pair<uint32_t, uint32_t> range)
{
    if (range.first < range.second && s.capture.take(range.first, range.second, s.weightsSent) && p.writer())
        p.writer()->submitRound(s.capture.takeBatch()); // a long prefill: hand over what is there
}

void Probe::handOver(std::vector<TensorJob> &pending)
{
    if (pending.empty() || !m_writer)
        return;
    m_writer->submit(std::move(pending));
    pending.clear();
}

ProbeStatus Probe::status(bool finished)
{
    if (!m_librariesRead.exchange(true)) { // loaded by the first round: read once, outside the lock
        auto objects = loadedObjects();
        auto libs = ggmlLibraries(objects);
        auto devices = backendDevices();
        auto features = cpuFeatures();
        auto version = ggmlVersion();
        std::lock_guard lock(m_statusMutex);
        m_status.libraries = std::move(libs);
        m_status.objects = std::move(objects);
        m_status.devices = std::move(devices);
        m_status.cpuFeatures = std::move(features);
        m_status.ggmlVersion = std::move(version);
    }
    auto threads = cpuThreadCounts();
    ProbeStatus s;
    {
        std::lock_guard lock(m_statusMutex);
        m_status.cpuThreads = std::move(threads);
        s = m_status;
        m_statusDirty = false;
    }
    s.finished = finished;
    s.weightsCached = WeightCache::get().hits();
    return s;
}

void Probe::writeStatus(bool finished)
{
    if (m_writer)
        m_writer->submitStatus(status(finished));
}

} // namespace llmscope::probe
