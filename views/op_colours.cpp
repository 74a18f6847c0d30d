#include "views/op_colours.h"

#include <algorithm>

#include "document/reason_words.h"
#include "document/session_document.h"

#include "core/compare/divergence_cause.h"

using namespace llmscope;

namespace {

// A perceptual ramp from dark blue through green to yellow (viridis' ends and middle).
QColor ramp(double t)
{
    static const QColor stops[] = {QColor(68, 1, 84), QColor(59, 82, 139), QColor(33, 145, 140), QColor(94, 201, 98),
                                   QColor(253, 231, 37)};
    t = std::clamp(t, 0.0, 1.0) * 4.0;
    const int i = std::min(3, int(t));
    const double f = t - i;
    const QColor &a = stops[i], &b = stops[i + 1];
    return QColor(int(a.red() + (b.red() - a.red()) * f), int(a.green() + (b.green() - a.green()) * f),
                  int(a.blue() + (b.blue() - a.blue()) * f));
}

// Two ramps for a comparison's verdicts: pale to deep blue for passed ops, light to deep red
// for failed ones; t in [0, 1] is the value's place in the range shown.
QColor passRamp(double t)
{
    t = std::clamp(t, 0.0, 1.0);
    return QColor(int(222 + (33 - 222) * t), int(235 + (102 - 235) * t), int(247 + (172 - 247) * t));
}

QColor failRamp(double t)
{
    t = std::clamp(t, 0.0, 1.0);
    return QColor(int(250 + (165 - 250) * t), int(140 + (0 - 140) * t), int(120 + (38 - 120) * t));
}

// An op's cell in a round of one of the round -> op -> cell maps; null when there is none.
template <typename Cell>
const Cell *cellOf(const std::map<int64_t, QHash<QString, Cell>> &byRound, const QString &op, int64_t round)
{
    const auto r = byRound.find(round);
    if (op.isEmpty() || r == byRound.end())
        return nullptr;
    const auto it = r->second.find(op);
    return it == r->second.end() ? nullptr : &*it;
}

} // namespace

OpColours::OpColours(QObject *parent) : QObject(parent) {}

void OpColours::follow(SessionDocument *doc)
{
    m_doc = doc;
    connect(doc, &SessionDocument::sourceChanged, this, &OpColours::clear);
    connect(doc, &SessionDocument::roundsAdded, this, [this](const DumpRounds::Chunk &c) {
        for (const live::RoundStats &s : c.stats)
            statsAdded(s.round);
    });
    updateRounds(); // the rounds it holds already
    emit roundsChanged();
    recompute();
}

void OpColours::clear()
{
    m_compare.reset();
    m_diff.clear();
    m_spread.reset();
    m_spreadAt.clear();
    m_replay.reset();
    m_rounds.clear();
    m_firstOp.clear();
    m_blamedLeaf.clear();
    m_firstRound = -1;
    m_round = -1;
    recompute();
    emit roundsChanged();
}

void OpColours::statsAdded(int64_t round)
{
    // A new round (the document may have let its oldest go): the rounds again.
    if (!std::binary_search(m_rounds.begin(), m_rounds.end(), round)) {
        updateRounds();
        emit roundsChanged();
    }
    if (m_scopeEveryRound || m_round < 0 || m_round == round)
        recompute(); // what is shown just changed
}

void OpColours::setCompare(std::shared_ptr<const CompareResult> compare)
{
    m_compare = std::move(compare);
    m_diff.clear();
    m_chainEnd.clear();
    if (!m_compare)
        return clearCompare();
    const CompareResult &r = *m_compare;
    for (size_t i = 0; i < r.ops.size(); ++i)
        if (r.ops[i].unreadable.empty())
            m_diff[r.ops[i].round].insert(QString::fromStdString(r.ops[i].opId), int(i));
    // A fused chain's inner ops, never in memory, show their chain: one cell of one colour.
    for (size_t i = 0; i < r.ops.size(); ++i) {
        const OpResult &o = r.ops[i];
        if (o.fusedIds.size() < 2 || !o.unreadable.empty())
            continue;
        const QString end = QString::fromStdString(o.opId);
        for (size_t k = 0; k + 1 < o.fusedIds.size(); ++k) {
            const QString member = QString::fromStdString(o.fusedIds[k]);
            if (member == end || m_diff[o.round].contains(member))
                continue; // compared on its own (a side that ran it unfused dumped it)
            m_diff[o.round].insert(member, int(i));
            m_chainEnd[o.round].insert(member, end);
        }
    }
    m_firstOp.clear();
    m_blamedLeaf.clear();
    m_firstRound = -1;
    if (r.firstDivergent >= 0) {
        const OpResult &first = r.ops[size_t(r.firstDivergent)];
        m_firstOp = QString::fromStdString(first.opId);
        m_firstRound = first.round;
        if (const DivergenceCause cause = divergenceCause(r, first);
            cause.row && (cause.kind == DivergenceCause::Kind::Weight || cause.kind == DivergenceCause::Kind::Input))
            m_blamedLeaf = QString::fromStdString(cause.row->tensorName);
    }
    updateRounds();
    emit roundsChanged();
    recompute();
}

void OpColours::clearCompare()
{
    m_compare.reset();
    m_diff.clear();
    m_chainEnd.clear();
    m_firstOp.clear();
    m_blamedLeaf.clear();
    m_firstRound = -1;
    updateRounds();
    emit roundsChanged();
    recompute();
}

void OpColours::setOpcheck(std::shared_ptr<const OpcheckResult> r)
{
    m_replay = std::move(r);
    updateRounds();
    emit roundsChanged();
    recompute();
}

const OpcheckRow *OpColours::replayOf(const QString &op, int64_t round) const
{
    return m_replay && !op.isEmpty() ? m_replay->worstOf(op.toStdString(), round) : nullptr;
}

bool OpColours::hasStatsIn(int64_t round) const
{
    return m_doc && m_doc->rounds().hasStatsIn(round);
}

void OpColours::updateRounds()
{
    m_rounds.clear();
    if (m_doc)
        m_rounds = m_doc->rounds().statsRounds();
    for (const auto &[k, v] : m_diff)
        m_rounds.push_back(k);
    for (const auto &[k, v] : m_spreadAt)
        m_rounds.push_back(k);
    if (m_replay)
        for (int64_t k : m_replay->rounds())
            m_rounds.push_back(k);
    std::sort(m_rounds.begin(), m_rounds.end());
    m_rounds.erase(std::unique(m_rounds.begin(), m_rounds.end()), m_rounds.end());
}

void OpColours::setMetric(Metric m)
{
    m_metric = m;
    recompute();
}

void OpColours::setScale(Scale s)
{
    m_scale = s;
    recompute();
}

void OpColours::setRound(int64_t round)
{
    m_round = round;
    emit roundsChanged();
    recompute();
}

int64_t OpColours::round() const
{
    if (m_round >= 0 || m_rounds.empty())
        return m_round;
    return m_rounds.back();
}

void OpColours::setThreshold(double t)
{
    m_threshold = t;
    recompute();
}

void OpColours::setScope(QStringList ops, bool everyRound)
{
    m_scope = std::move(ops);
    m_scopeEveryRound = everyRound;
    recompute();
}

const live::OpStats *OpColours::statsOf(const QString &op, int64_t round) const
{
    return m_doc ? m_doc->rounds().statsOf(op, round) : nullptr;
}

std::optional<OpColours::DiffCell> OpColours::diffOf(const QString &op, int64_t round) const
{
    const int *at = cellOf(m_diff, op, round);
    if (!at)
        return std::nullopt;
    const CompareResult &r = *m_compare;
    const OpResult &o = r.ops[size_t(*at)];
    DiffCell c;
    c.cosine = o.outputCosine;
    c.relEuclidean = o.outputError;
    c.added = o.addedError;
    c.budgetShare = o.budgetShare;
    c.passed = o.passed;
    bool anyOutput = false, allStats = true;
    for (size_t row : o.rows) { // the largest over its outputs
        const CompareRow &x = r.rows[row];
        if (x.golden.input)
            continue;
        c.maxRelErr = std::max(c.maxRelErr, x.computed ? x.metrics.maxRelErr : x.statsRelDiff);
        anyOutput = true;
        allStats = allStats && x.statsOnly;
    }
    c.fromStats = anyOutput && allStats;
    return c;
}

QString OpColours::chainEndOf(const QString &op, int64_t round) const
{
    const QString *end = cellOf(m_chainEnd, op, round);
    return end ? *end : QString();
}

const OpResult *OpColours::fusedChainOf(const QString &op, int64_t round) const
{
    const int *at = cellOf(m_diff, op, round);
    if (!at)
        return nullptr;
    const OpResult &o = m_compare->ops[size_t(*at)];
    return o.fusedIds.size() > 1 ? &o : nullptr;
}

QString OpColours::causeOf(const QString &op, int64_t round) const
{
    const int *at = cellOf(m_diff, op, round);
    if (!at)
        return {};
    const OpResult &o = m_compare->ops[size_t(*at)];
    const Reason why = o.passed ? Reason() : causeWords(*m_compare, o);
    return why.empty() ? QString() : reasonWords(why);
}

void OpColours::setSpread(std::shared_ptr<const SpreadResult> r)
{
    m_spread = std::move(r);
    m_spreadAt.clear();
    if (m_spread)
        for (size_t i = 0; i < m_spread->ops.size(); ++i)
            m_spreadAt[m_spread->ops[i].round].insert(QString::fromStdString(m_spread->ops[i].opId), int(i));
    updateRounds();
}

const SpreadOp *OpColours::spreadOf(const QString &op, int64_t round) const
{
    const int *at = cellOf(m_spreadAt, op, round);
    return at ? &m_spread->ops[size_t(*at)] : nullptr;
}

double OpColours::valueOf(const QString &op, int64_t round) const
{
    if (m_metric == Metric::ReplayError) {
        const OpcheckRow *c = replayOf(op, round);
        return c && isJudged(c->verdict) ? c->judgedRatio : NAN;
    }
    if (m_metric == Metric::Spread) {
        const SpreadOp *s = spreadOf(op, round);
        return s ? s->spread : NAN;
    }
    if (isDiffMetric(m_metric)) {
        const std::optional<DiffCell> c = diffOf(op, round);
        if (!c)
            return NAN;
        switch (m_metric) {
        case Metric::CosineDistance: return 1 - c->cosine;
        case Metric::MaxRelError: return c->maxRelErr;
        case Metric::RelEuclidean: return c->relEuclidean;
        case Metric::BudgetShare: return c->budgetShare;
        default: return c->added;
        }
    }
    const live::OpStats *s = statsOf(op, round);
    if (!s)
        return NAN;
    switch (m_metric) {
    case Metric::MaxAbs: return std::max(std::fabs(s->max), std::fabs(s->min));
    case Metric::Mean: return s->mean;
    case Metric::L2Norm: return s->l2norm;
    case Metric::NanInf: return double(s->nan + s->inf);
    case Metric::Change: {
        const int64_t before = m_doc->rounds().statsRoundBefore(round);
        const live::OpStats *p = before < 0 ? nullptr : statsOf(op, before);
        if (!p)
            return NAN;
        return std::fabs(s->l2norm - p->l2norm) / std::max(std::fabs(p->l2norm), 1e-30);
    }
    default: return NAN; // the diff metrics, handled above
    }
}

void OpColours::recompute()
{
    m_lo = INFINITY;
    m_hi = -INFINITY;
    m_passed = m_failed = {};
    const bool judged = isDiffMetric(m_metric) || m_metric == Metric::Spread;
    auto take = [this, judged](const QString &op, int64_t round) {
        const double v = valueOf(op, round);
        if (!std::isfinite(v) || (m_scale == Scale::Log && v <= 0))
            return;
        m_lo = std::min(m_lo, v);
        m_hi = std::max(m_hi, v);
        if (!judged || flagged(v))
            return;
        if (const std::optional<bool> passed = passedIn(op, round))
            (*passed ? m_passed : m_failed).take(v);
    };
    const int64_t shown = round();
    for (const QString &op : m_scope) {
        if (!m_scopeEveryRound) {
            take(op, shown);
            continue;
        }
        for (int64_t r : m_rounds)
            take(op, r);
    }
    if (m_lo > m_hi)
        m_lo = m_hi = 0;
    emit changed();
}

QColor OpColours::colourFor(double v) const
{
    if (std::isnan(v))
        return {};
    if (std::isinf(v))
        return QColor(230, 0, 120);
    if (m_metric == Metric::NanInf)
        return v > 0 ? QColor(230, 0, 120) : QColor(235, 235, 235);
    if (flagged(v))
        return QColor(255, 40, 40); // over the threshold: flagged, whatever the ramp says
    if (m_scale == Scale::Diverging) { // white at zero, blue below, red above, by the larger side
        const double span = std::max(std::fabs(m_lo), std::fabs(m_hi));
        const double f = span > 0 ? std::clamp(v / span, -1.0, 1.0) : 0;
        return f < 0 ? QColor(int(255 + (33 - 255) * -f), int(255 + (102 - 255) * -f), int(255 + (172 - 255) * -f))
                     : QColor(int(255 + (178 - 255) * f), int(255 + (24 - 255) * f), int(255 + (43 - 255) * f));
    }
    if (m_scale == Scale::Log && (v <= 0 || m_lo <= 0))
        return QColor(200, 200, 200);
    return ramp(rampPosition(v));
}

double OpColours::rampPosition(double v, double lo, double hi) const
{
    if (m_scale == Scale::Log && v > 0 && lo > 0)
        return hi > lo ? (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)) : 1;
    return hi > lo ? (v - lo) / (hi - lo) : 1;
}

std::optional<bool> OpColours::passedIn(const QString &op, int64_t round) const
{
    if (isDiffMetric(m_metric))
        if (const std::optional<DiffCell> c = diffOf(op, round))
            return c->passed;
    if (m_metric == Metric::Spread)
        if (const SpreadOp *s = spreadOf(op, round))
            return !s->departs;
    return std::nullopt;
}

bool OpColours::failedIn(const QString &op, int64_t round) const
{
    const std::optional<DiffCell> c = diffOf(op, round);
    return c && !c->passed;
}

QColor OpColours::colourOf(const QString &op, int64_t round) const
{
    const double v = valueOf(op, round);
    const std::optional<DiffCell> c = isDiffMetric(m_metric) ? diffOf(op, round) : std::nullopt;
    const SpreadOp *s = m_metric == Metric::Spread ? spreadOf(op, round) : nullptr;
    if ((!c && !s) || std::isinf(v) || flagged(v)) // over "Flag above": flagged as everywhere
        return colourFor(v);
    const bool passed = c ? c->passed : !s->departs;
    if (std::isnan(v)) // the verdict without the value (a cosine statistics cannot tell)
        return passed ? passRamp(0) : failRamp(1);
    if (s && v == 0)
        return passRamp(0); // bit-identical in every run: the palest
    // Each ramp spans its own values: a passed op from nothing added (the palest; on a log
    // scale, from the least) to the most a passed op adds, a failed one from the least to the
    // most failed (one alone: the deepest).
    if (passed) {
        const double from = m_scale == Scale::Log ? m_passed.lo : std::min(m_passed.lo, 0.0);
        return passRamp(m_passed.hi > from ? rampPosition(v, from, m_passed.hi) : 0);
    }
    return failRamp(0.35 + 0.65 * rampPosition(v, m_failed.lo, m_failed.hi)); // a failed op is never pale
}
