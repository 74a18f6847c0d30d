// The tensors of a dump as a tree: round -> operation path -> tensor, with dtype, shape
// and statistics columns.
#pragma once
#include <QAbstractItemModel>

#include <deque>
#include <memory>
#include <vector>

#include "core/dump/dump_index.h"
#include "core/requests/requests.h"

class SessionDocument;

class DumpTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, DTypeColumn, ShapeColumn, MaxColumn, MinColumn, MeanColumn, NormColumn, ColumnCount };
    // a tensor's op and round, none above the tensors; a round's row: its round
    enum Role { OpIdRole = Qt::UserRole + 1, RoundRole, RoundRowRole };

    explicit DumpTreeModel(QObject *parent = nullptr);
    ~DumpTreeModel() override;

    // The tree grows as a scan reads the dump a round at a time (scanDumpByRound's chunks):
    // each chunk's rounds are appended as new top-level rows, so the rounds already shown
    // keep their place, expansion and selection. A chunk that adds to a round already
    // shown resets the model (only the scan's last chunk can).
    void addChunk(const llmscope::DumpIndex &chunk);
    void setIndex(const llmscope::DumpIndex &index); // clear, then the whole index as one chunk
    void clear();
    // The document's files, round by round as a scan brings them, read in the document's index
    // (no copy); addChunk and setIndex are then for the document alone.
    void follow(SessionDocument *doc);
    size_t tensorCount() const { return m_shown; }
    // "request 3 (sequence 1)": the requests a round computed tokens of, in words; empty when
    // the document knows none (a run of one sequence is not told as requests).
    QString requestWords(int64_t round) const;
    static QString describe(const llmscope::Request &r); // as `llmscope info` lists it

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node {
        QString label;
        int tensor = -1; // index into m_tensors for leaves
        int64_t round = -1; // a round's row: its round
        Node *parent = nullptr;
        int row = 0;
        std::vector<std::unique_ptr<Node>> children;
        Node *child(const QString &label);
    };
    Node *nodeFor(const QModelIndex &index) const;
    // Nodes for these records under root.
    void build(Node *root, const std::vector<size_t> &records) const;
    void grow(); // the records after m_shown, as rows

    // The records: the followed document's, else the model's own. Leaves hold their place
    // there, so the records may grow under the tree.
    std::deque<llmscope::TensorRecord> m_own;
    const std::deque<llmscope::TensorRecord> *m_records = &m_own;
    size_t m_shown = 0; // records in the tree
    std::unique_ptr<Node> m_root = std::make_unique<Node>();
    const SessionDocument *m_doc = nullptr; // the followed document: its requests
};
