// The operations of a program as a tree: model -> top-level operations (embedding, layers,
// output head) -> their ops, as far down as the topology goes. Fed live from the probe's
// topology messages or from an opened dump's topology file. Check boxes choose msit's -ids
// (a checked layer is the layer's id, its children with it); idsText()/setIdsText() keep the
// text and the boxes in step both ways. Columns carry each op's last statistics and the
// round its dumping was acknowledged from.
#pragma once
#include <QAbstractItemModel>
#include <QHash>
#include <QSet>
#include <QStringList>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <optional>
#include <vector>

#include "core/compare/compare_run.h"
#include "core/dump/dump_index.h"
#include "core/graph/op_graph.h"
#include "core/live/live_protocol.h"
#include "core/opcheck/opcheck_run.h"

class OpTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        NameColumn,
        TypeColumn,
        BackendColumn,
        ShapeColumn,
        DTypeColumn,
        MaxColumn,
        MinColumn,
        MeanColumn,
        NormColumn,
        DumpedColumn,
        ReplayColumn,
        ColumnCount
    };
    // SearchTextRole: what the search box matches, every column's text and the names of the
    // tensors it reads that no op computes (its weights: a verdict's "blk.1.ffn_down.weight").
    enum Role { OpIdRole = Qt::UserRole + 1, DumpedFromRole, HasNanInfRole, SearchTextRole };

    explicit OpTreeModel(QObject *parent = nullptr);
    ~OpTreeModel() override;

    // The program's operations, live or from an opened dump: keeps the boxes checked by id,
    // and the statistics of ops still there (a live graph comes again for decode).
    void setGraph(const llmscope::OpGraph &graph);
    // A replay of the dump's ops (llmscope opcheck), shared with its owner: each op's worst
    // verdict over its rounds and outputs, its reason in the tooltip; null clears them.
    void setOpcheck(std::shared_ptr<const llmscope::OpcheckResult> r);
    // A comparison's fused chains: each op computed inside one says so in its type ("RMS_NORM,
    // fused"), its tooltip naming the chain's ops; null clears them.
    void setFusedChains(const llmscope::CompareResult *r);
    // An opened dump's files as a scan brings them: each op's output shape and type where its
    // topology did not say (msit's model file has none).
    void addOutputs(const llmscope::DumpIndex &chunk);
    void addOutputs(const std::deque<llmscope::TensorRecord> &records);
    bool hasBackends() const { return m_backends > 0; } // some op's backend is known
    void clear();

    void setRoundStats(const llmscope::live::RoundStats &s);
    int64_t statsRound() const { return m_statsRound; }
    // The selection acknowledged by the probe applies from fromRound: marks the ops it dumps.
    void setApplied(const llmscope::Selection &selection, int64_t fromRound);

    QString idsText() const; // the checked ids, in graph order ("" when none)
    // Checks exactly these ids; throws llmscope::Error for text that is no -ids list.
    // Ids the tree does not hold (yet) are kept, so the text survives a new topology.
    void setIdsText(const QString &text);
    QStringList checkedIds() const;
    int opCount() const { return m_count; }
    QModelIndex indexForId(const QString &id) const;
    // The op's folder path in msit's layout ("2_DecoderLayer/29_MUL_MAT"), "" for unknown ids.
    QString opPath(const QString &id) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void checkedIdsChanged(const QString &idsText);

private:
    void addOutput(const llmscope::TensorRecord &t); // an op's first output's shape and type
    struct Node {
        QString id, name, type, shape, dtype;
        QStringList leafInputs; // the tensors it reads that no op computes (weights, tokens)
        QString backend; // the backend that ran it ("CPU", "Vulkan0"), when known
        QString liveFused; // a live run with fusion kept: the chain it is computed in, in words
        Node *parent = nullptr;
        int row = 0;
        bool checked = false;
        std::optional<llmscope::live::OpStats> stats;
        int64_t dumpedFrom = -1;
        std::vector<std::unique_ptr<Node>> children;
    };
    Node *nodeFor(const QModelIndex &index) const;
    QModelIndex indexFor(const Node *n, int column = 0) const;
    bool inheritsCheck(const Node *n) const; // an ancestor is checked
    const llmscope::OpcheckRow *replayOf(const Node *n) const; // its worst replayed output; null: none
    QString replayText(const Node *n) const;
    void rebuild(std::unique_ptr<Node> root);
    QString fusedWords(const Node *n) const; // the chain it was computed in (a comparison's, else the live run's)
    void emitSubtreeChanged(Node *n, int first, int last);

    std::unique_ptr<Node> m_root;
    int m_backends = 0; // ops whose backend is known
    QHash<QString, Node *> m_byId;
    std::shared_ptr<const llmscope::OpcheckResult> m_replay;
    QStringList m_unknownIds; // checked in the text, not in this tree
    QHash<QString, QString> m_fused; // op id -> the fused chain it was computed in, in words
    QHash<QString, std::pair<QString, QString>> m_outputs; // op id -> output shape and type from the dump's files
    int m_count = 0;
    int64_t m_statsRound = -1;
};
