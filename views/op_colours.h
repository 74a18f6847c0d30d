// The one colour scale the views share: each op's value under the statistic or comparison
// metric picked, in the round picked, and the colour of that value (the ramp, the scale, the
// threshold and the range of what is shown). It reads the statistics and the replay where the
// document keeps them (follow()), and is given the comparison whose metrics it shows; the
// heatmap lays these colours out as layers x kinds (or rounds x layers),
// the layer graph paints its boxes with them, so a value has one colour wherever it is seen.
// GUI thread only.
#pragma once
#include <QColor>
#include <QHash>
#include <QObject>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/compare/compare_run.h"
#include "core/live/live_protocol.h"
#include "core/opcheck/opcheck_run.h"
#include "core/run_spread/spread.h"

class SessionDocument;

class OpColours : public QObject {
    Q_OBJECT
public:
    enum class Metric {
        MaxAbs,
        Mean,
        L2Norm,
        NanInf,
        Change,
        // a diff session's, per op output: 1 - cosine, max relative error,
        // relative euclidean distance, and the part of it the op adds itself
        CosineDistance,
        MaxRelError,
        RelEuclidean,
        AddedError,
        // the NMSE it adds as a share of its op type's budget (engine standard)
        BudgetShare,
        // a replay's (opcheck): the largest error of its outputs over their bound
        ReplayError,
        // a spread's (several runs): the largest distance of its output between two runs
        Spread
    };
    // Diverging: around zero, blue below and red above (signed statistics such as the mean).
    enum class Scale { Linear, Log, Diverging };
    // A compared op output's figures, as the heatmap's tooltip shows them: read from the
    // comparison when asked (diffOf), not kept.
    struct DiffCell {
        double cosine = 1, maxRelErr = 0, relEuclidean = 0, added = 0, budgetShare = 0;
        bool passed = true;
        bool fromStats = false; // judged on max/min/mean/L2 norm only (an estimate), not element by element
    };

    explicit OpColours(QObject *parent = nullptr);

    // The document's statistics, as rounds bring them; its source's end clears the scale.
    void follow(SessionDocument *doc);
    void clear(); // the comparison, the replay and the round; the statistics are the document's
    // A comparison of golden (whose ops these are) with test, shared with the document: its
    // metrics per round and op, read there.
    void setCompare(std::shared_ptr<const llmscope::CompareResult> r);
    void clearCompare();
    static bool isDiffMetric(Metric m) { return m >= Metric::CosineDistance && m <= Metric::BudgetShare; }
    // A replay of the dump's ops (llmscope opcheck), shared with the document: each op's worst
    // output in a round, whose error over the bound it was judged by is its value.
    void setOpcheck(std::shared_ptr<const llmscope::OpcheckResult> r);
    void clearOpcheck() { setOpcheck(nullptr); }
    // Several runs side by side, shared with the document: each op's spread in a round; an op
    // where runs part beyond their standard is on the failed ramp.
    void setSpread(std::shared_ptr<const llmscope::SpreadResult> r);
    const llmscope::SpreadOp *spreadOf(const QString &op, int64_t round) const; // null: not in the spread
    const llmscope::OpcheckRow *replayOf(const QString &op, int64_t round) const; // null: not in the replay
    // An op the comparison found computed inside a fused chain (its output never reached memory):
    // the chain's end, whose figures it shows (diffOf, colourOf); empty for any other op.
    QString chainEndOf(const QString &op, int64_t round) const;
    // The chain's end an op belongs to, itself included; null when not in a fused chain.
    const llmscope::OpResult *fusedChainOf(const QString &op, int64_t round) const;
    QString firstDivergentOp() const { return m_firstOp; }
    // The weight or input the first divergent op's error comes in through (its tensor name), where
    // the comparison finds one; empty when the op adds the error itself.
    QString blamedLeaf() const { return m_blamedLeaf; }
    int64_t firstDivergentRound() const { return m_firstRound; }

    void setMetric(Metric m);
    Metric metric() const { return m_metric; }
    void setScale(Scale s);
    Scale scale() const { return m_scale; }
    void setRound(int64_t round); // -1: the newest round with statistics
    int64_t round() const; // the round shown
    std::vector<int64_t> rounds() const { return m_rounds; } // with statistics or compare metrics
    // Values above it are flagged in one colour; NaN: no threshold. Recolours at once.
    void setThreshold(double t);
    double threshold() const { return m_threshold; }
    bool flagged(double v) const { return !std::isnan(m_threshold) && v > m_threshold; }

    // What the colour range spans: these ops in the round shown, or in every round (the
    // heatmap's token axis). The heatmap sets it to what it shows.
    void setScope(QStringList ops, bool everyRound);
    // The colour range of what is in scope: [lo, hi] of the finite values.
    std::pair<double, double> range() const { return {m_lo, m_hi}; }
    // Under a verdict (a diff metric, the spread): the ranges of the passed and of the failed
    // values, each ramp spanning its own; {0, 0} when none.
    std::pair<double, double> passedRange() const
    {
        const auto [lo, hi] = m_passed.shown();
        return {m_scale == Scale::Log ? lo : std::min(lo, 0.0), hi}; // as the ramp spans them
    }
    bool anyFailed() const { return m_failed.lo <= m_failed.hi; }
    std::pair<double, double> failedRange() const { return m_failed.shown(); }
    QColor colourFor(double v) const; // invalid for NaN (no value)

    double valueOf(const QString &op, int64_t round) const; // NaN: none
    double valueOf(const QString &op) const { return valueOf(op, round()); }
    // An op's colour. Under a diff metric the verdict comes first: failed ops on a red ramp,
    // passed ones on a blue one, so a failing op never shares a colour with a passing one
    // whatever their values (a culprit can use less of its budget than a passing op).
    QColor colourOf(const QString &op, int64_t round) const;
    QColor colourOf(const QString &op) const { return colourOf(op, round()); }
    bool failedIn(const QString &op, int64_t round) const; // compared in that round, and failed
    const llmscope::live::OpStats *statsOf(const QString &op, int64_t round) const; // null: not dumped
    std::optional<DiffCell> diffOf(const QString &op, int64_t round) const;
    // Where a failed op's error comes in (the weight or input the comparison blames), in words;
    // empty where it passed or adds the error itself. For tooltips: not on the painting path.
    QString causeOf(const QString &op, int64_t round) const; // none: not compared
    bool hasStatsIn(int64_t round) const;

signals:
    void changed(); // values or colours: views recolour
    void roundsChanged(); // the rounds with values, or the round shown

private:
    void recompute(); // the range, then changed()
    struct Span {
        double lo = INFINITY, hi = -INFINITY;
        void take(double v) { lo = std::min(lo, v), hi = std::max(hi, v); }
        std::pair<double, double> shown() const { return lo > hi ? std::pair{0.0, 0.0} : std::pair{lo, hi}; }
    };
    // v's place in [lo, hi], 0 to 1 (log or linear)
    double rampPosition(double v, double lo, double hi) const;
    double rampPosition(double v) const { return rampPosition(v, m_lo, m_hi); }
    std::optional<bool> passedIn(const QString &op, int64_t round) const; // under a verdict; none: not judged
    void updateRounds();
    void statsAdded(int64_t round);

    const SessionDocument *m_doc = nullptr; // the statistics
    std::shared_ptr<const llmscope::OpcheckResult> m_replay; // the replay
    std::shared_ptr<const llmscope::CompareResult> m_compare; // the comparison
    QString m_blamedLeaf;
    std::map<int64_t, QHash<QString, int>> m_diff; // round -> op -> its index in m_compare->ops
    std::map<int64_t, QHash<QString, QString>> m_chainEnd; // round -> an inner op of a fused chain -> its end
    std::shared_ptr<const llmscope::SpreadResult> m_spread; // the spread
    std::map<int64_t, QHash<QString, int>> m_spreadAt; // round -> op -> its index in m_spread->ops
    std::vector<int64_t> m_rounds; // with any of the three, ascending
    QString m_firstOp; // the first divergent op
    int64_t m_firstRound = -1;
    Metric m_metric = Metric::MaxAbs;
    Scale m_scale = Scale::Linear;
    int64_t m_round = -1;
    double m_threshold = NAN;
    Span m_passed, m_failed; // under a verdict
    QStringList m_scope;
    bool m_scopeEveryRound = false;
    double m_lo = 0, m_hi = 0;
};
