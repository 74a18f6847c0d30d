// The tensors of a dump as a tree: round -> operation path -> tensor, with dtype, shape
// and statistics columns.
#pragma once
#include <QAbstractItemModel>

#include <memory>
#include <vector>

#include "dump/dump_index.h"

class DumpTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, DTypeColumn, ShapeColumn, MaxColumn, MinColumn, MeanColumn, NormColumn, ColumnCount };

    explicit DumpTreeModel(QObject *parent = nullptr);
    ~DumpTreeModel() override;

    // A dump's index and its tree of nodes, built off the GUI thread (buildTree) and swapped
    // in at once (setTree): a dump of a hundred thousand tensors does not stall the window.
    struct Tree;
    static std::shared_ptr<Tree> buildTree(llmscope::DumpIndex index);
    void setTree(std::shared_ptr<Tree> tree);
    void setIndex(llmscope::DumpIndex index) { setTree(buildTree(std::move(index))); }
    const llmscope::DumpIndex &dumpIndex() const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node {
        QString label;
        int tensor = -1; // index into m_index.tensors for leaves
        Node *parent = nullptr;
        int row = 0;
        std::vector<std::unique_ptr<Node>> children;
        Node *child(const QString &label);
    };
    Node *nodeFor(const QModelIndex &index) const;

    std::shared_ptr<Tree> m_tree;
    Node *m_root = nullptr; // m_tree's
};
