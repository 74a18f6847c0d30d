#include "views/op_tree_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

#include <functional>

#include "core/util/error.h"
#include "document/cursor.h"
#include "document/session_document.h"
#include "views/op_tree_model.h"

OpTreePanel::OpTreePanel(QWidget *parent)
    : QWidget(parent), m_model(new OpTreeModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_view(new QTreeView(this)), m_search(new QLineEdit(this)), m_ids(new QLineEdit(this)),
      m_apply(new QPushButton(tr("&Apply"), this)), m_status(new QLabel(this)), m_searchNote(new QLabel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setRecursiveFilteringEnabled(true);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(OpTreeModel::IdColumn);
    m_proxy->setFilterRole(OpTreeModel::SearchTextRole); // id, name, type and the weights it reads
    m_view->setModel(m_proxy);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->header()->resizeSection(OpTreeModel::IdColumn, 130);
    m_view->header()->resizeSection(OpTreeModel::NameColumn, 130);
    m_view->header()->resizeSection(OpTreeModel::TypeColumn, 110);
    m_view->header()->resizeSection(OpTreeModel::BackendColumn, 70);
    m_search->setPlaceholderText(tr("Search by name, type, id or weight (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_ids->setPlaceholderText(tr("every op; tick boxes or type 2_29,3")); // whole beside "-ids" at 1024 px
    m_ids->setToolTip(tr("msit's -ids: operation ids joined by commas. A layer's id dumps the layer with its "
                         "children. Typing here checks the boxes; checking boxes writes here."));
    m_apply->setToolTip(tr("Send this selection to the running program: it dumps these operations from its "
                           "next graph on (Ctrl+Return)"));
    m_apply->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_status->setWordWrap(true);

    auto *idsRow = new QHBoxLayout;
    idsRow->addWidget(new QLabel(tr("-ids"), this));
    idsRow->addWidget(m_ids, 1);
    idsRow->addWidget(m_apply);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_search);
    layout->addWidget(m_searchNote);
    layout->addWidget(m_view, 1);
    m_searchNote->setWordWrap(true);
    m_searchNote->setStyleSheet(QStringLiteral("color: #a05000"));
    m_searchNote->hide();
    // Tab goes search, tree, -ids, Apply: the order they are seen in, not the order built in.
    setTabOrder(m_search, m_view);
    setTabOrder(m_view, m_ids);
    setTabOrder(m_ids, m_apply);
    layout->addLayout(idsRow);
    layout->addWidget(m_status);
    setApplyEnabled(false, tr("Launch a program (Session > Launch) to apply a selection while it runs"));

    // A search that finds nothing says so, and what it looked in; asked again as ops come.
    auto noteSearch = [this] {
        const QString t = m_search->text();
        const bool none = !t.isEmpty() && m_proxy->rowCount() == 0;
        m_searchNote->setText(none ? tr("No operation's id, name, type or weight contains \"%1\".").arg(t) : QString());
        m_searchNote->setVisible(none);
    };
    connect(m_search, &QLineEdit::textChanged, this, [this, noteSearch](const QString &t) {
        {
            // Filtering the picked op out moves the view's current row to a neighbour: not a
            // pick. The picked op stays picked, shown again when the search lets it through.
            const QScopedValueRollback quiet(m_filtering, true);
            m_proxy->setFilterFixedString(t);
            showPicked();
        }
        if (!t.isEmpty())
            m_view->expandAll();
        noteSearch();
    });
    connect(m_proxy, &QAbstractItemModel::modelReset, this, noteSearch);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, noteSearch);
    connect(m_model, &OpTreeModel::checkedIdsChanged, this, [this](const QString &ids) {
        if (m_syncing)
            return;
        m_syncing = true;
        m_ids->setText(ids);
        m_ids->setStyleSheet(QString());
        m_syncing = false;
        if (m_doc && !m_following) // picked in the tree
            m_doc->setPickedIds(ids, this);
    });
    connect(m_ids, &QLineEdit::textEdited, this, &OpTreePanel::idsEdited);
    connect(m_apply, &QPushButton::clicked, this, [this] { emit applyRequested(m_model->idsText()); });
    // A new graph (decode after the prompt) resets the model: what was open stays open.
    connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        m_filtering = true; // until the reset's end: the rows go and come, the picked op stays
        m_expanded.clear();
        std::function<void(const QModelIndex &)> walk = [&](const QModelIndex &parent) {
            for (int r = 0; r < m_proxy->rowCount(parent); ++r) {
                const QModelIndex i = m_proxy->index(r, 0, parent);
                if (m_view->isExpanded(i)) {
                    m_expanded.insert(i.data(OpTreeModel::OpIdRole).toString());
                    walk(i);
                }
            }
        };
        walk({});
    });
    // The Backend column only where something says which backend ran the ops (a live program,
    // a dump with kernel CSVs): an empty column would read as unknown backends.
    auto backendColumn = [this] { m_view->setColumnHidden(OpTreeModel::BackendColumn, !m_model->hasBackends()); };
    connect(m_model, &QAbstractItemModel::dataChanged, this, backendColumn);
    connect(m_model, &QAbstractItemModel::modelReset, this, backendColumn);
    backendColumn();
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        m_view->expandToDepth(0);
        for (const QString &id : std::as_const(m_expanded))
            if (const QModelIndex src = m_model->indexForId(id); src.isValid())
                m_view->expand(m_proxy->mapFromSource(src));
        showPicked();
        m_filtering = false;
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex &cur) {
        if (m_filtering || !cur.isValid())
            return;
        m_picked = cur.data(OpTreeModel::OpIdRole).toString();
        emit currentOpChanged(m_picked);
    });
}

void OpTreePanel::follow(Cursor *cursor)
{
    followOp(cursor, this, &OpTreePanel::currentOpChanged);
}

void OpTreePanel::idsEdited()
{
    m_syncing = true;
    try {
        m_model->setIdsText(m_ids->text());
        m_ids->setStyleSheet(QString());
        m_ids->setToolTip(QString());
    } catch (const llmscope::Error &e) {
        m_ids->setStyleSheet(QStringLiteral("QLineEdit { background: #ffe0e0; }"));
        m_ids->setToolTip(QString::fromUtf8(e.what()));
    }
    m_syncing = false;
    if (m_doc && !m_following) // as typed, an -ids list or not yet
        m_doc->setPickedIds(m_ids->text(), this);
}

void OpTreePanel::setApplyEnabled(bool on, const QString &why, bool rerun)
{
    m_apply->setEnabled(on);
    m_apply->setText(rerun ? tr("&Run again with these") : tr("&Apply"));
    m_apply->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return)); // setText drops it
    if (!why.isEmpty())
        m_apply->setToolTip(why);
}

void OpTreePanel::setStatus(const QString &text)
{
    m_status->setText(text);
}

QString OpTreePanel::status() const
{
    return m_status->text();
}

void OpTreePanel::setIdsText(const QString &text)
{
    m_ids->setText(text);
    idsEdited();
}

QString OpTreePanel::currentOpId() const
{
    return m_view->currentIndex().data(OpTreeModel::OpIdRole).toString();
}

void OpTreePanel::selectOp(const QString &id)
{
    // An op the tree lacks (not come yet, or none): nothing stands picked, so no stale row is
    // picked again later, or swallows the click that picks it.
    m_picked = m_model->indexForId(id).isValid() ? id : QString();
    showPicked();
}

void OpTreePanel::showPicked()
{
    const QModelIndex idx = m_proxy->mapFromSource(m_model->indexForId(m_picked));
    if (!idx.isValid()) { // searched out: no row stands for it
        const QScopedValueRollback quiet(m_filtering, true);
        m_view->selectionModel()->clear();
        return;
    }
    m_view->scrollTo(idx);
    m_view->setCurrentIndex(idx);
}

void OpTreePanel::follow(SessionDocument *doc)
{
    m_doc = doc;
    connect(doc, &SessionDocument::pickedIdsChanged, this, [this](const QString &text, const QObject *by) {
        if (by == this)
            return;
        // Followed, not written back: the document keeps what its writer wrote.
        const QScopedValueRollback following(m_following, true);
        try { // a launch's -ids: the boxes checked, the text as the tree says it
            m_model->setIdsText(text);
        } catch (const llmscope::Error &) { // no -ids list (typed in another panel): as typed, in red
            setIdsText(text);
        }
    });
    if (!doc->pickedIds().isEmpty()) { // picked before this panel was built (a language switch)
        const QScopedValueRollback following(m_following, true);
        setIdsText(doc->pickedIds());
    }
    connect(doc, &SessionDocument::sourceChanged, this, [this] {
        m_picked.clear();
        m_model->clear();
    });
    connect(doc, &SessionDocument::graphChanged, this, [this, doc] { m_model->setGraph(*doc->graph()); });
    connect(doc, &SessionDocument::resultChanged, this, [this, doc](SessionDocument::Result which) {
        if (which == SessionDocument::Result::Replay)
            m_model->setOpcheck(doc->results().replay);
        if (which == SessionDocument::Result::Comparison)
            m_model->setFusedChains(doc->results().comparison.get());
    });
    // Statistics stream in a round at a time while a program runs, faster than anyone reads them.
    m_statsShown.setSingleShot(true);
    m_statsShown.setInterval(100);
    connect(&m_statsShown, &QTimer::timeout, this,
            [this, doc] { m_model->setRoundStats(doc->rounds().newestStats()); });
    connect(doc, &SessionDocument::roundsAdded, this, [this](const DumpRounds::Chunk &c) {
        m_model->addOutputs(c.files);
        if (!c.stats.empty() && !m_statsShown.isActive())
            m_statsShown.start();
    });
    if (doc->graph()->empty())
        return;
    // What the document holds already (a window built on a session under way).
    m_model->setGraph(*doc->graph());
    m_model->setRoundStats(doc->rounds().newestStats());
    m_model->setOpcheck(doc->results().replay);
    m_model->setFusedChains(doc->results().comparison.get());
    m_model->addOutputs(doc->rounds().records());
}
