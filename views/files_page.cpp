#include "views/files_page.h"

#include <QComboBox>
#include <QHeaderView>
#include <QSignalBlocker>
#include <QLabel>
#include <QVBoxLayout>
#include <QTextBrowser>
#include <QTreeView>

#include <algorithm>

#include "document/cursor.h"
#include "document/session_document.h"
#include "views/dump_tree_model.h"

FilesPage::FilesPage(QWidget *parent)
    : QSplitter(parent), m_model(new DumpTreeModel(this)), m_tree(new QTreeView(this)),
      m_details(new QTextBrowser(this)), m_whose(new QLabel(this)), m_requests(new QComboBox(this))
{
    m_tree->setModel(m_model);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->resizeSection(DumpTreeModel::NameColumn, 300); // names readable; the rest scrolls
    m_tree->header()->setStretchLastSection(true);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &FilesPage::showDetails);
    // Above the tree: whose dump these files are (golden's or test's, when two are compared).
    m_whose->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_whose->setWordWrap(true);
    auto *left = new QWidget(this);
    auto *column = new QVBoxLayout(left);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(m_whose);
    column->addWidget(m_requests);
    column->addWidget(m_tree, 1);
    m_requests->setToolTip(
        tr("The requests the program served (llama-server's slots): show one request's rounds alone"));
    m_requests->hide();
    connect(m_requests, &QComboBox::currentIndexChanged, this, &FilesPage::showRequest);
    // Rounds a scan adds, or a tree built again: the chosen request's alone (rows start shown).
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &parent, int first, int last) {
        if (!parent.isValid())
            hideRows(first, last);
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { hideRows(0, m_model->rowCount() - 1); });
    addWidget(left);
    addWidget(m_details);
    setStretchFactor(0, 3);
    setStretchFactor(1, 1);
}

QString FilesPage::whose() const
{
    return m_whose->text();
}

const std::vector<llmscope::Request> &FilesPage::requestsShown() const
{
    static const std::vector<llmscope::Request> none;
    return m_doc ? m_doc->rounds().requests() : none;
}

void FilesPage::listRequests()
{
    const auto &all = requestsShown();
    const QSignalBlocker quiet(m_requests);
    const QVariant was = m_requests->currentData(); // the request chosen, by number
    m_requests->clear();
    m_requests->addItem(tr("Every round, every request"));
    for (const llmscope::Request &r : all)
        m_requests->addItem(DumpTreeModel::describe(r), r.number);
    m_requests->setCurrentIndex(std::max(0, was.isValid() ? m_requests->findData(was) : 0));
    m_requests->setVisible(llmscope::servesRequests(all));
    showRequest();
}

void FilesPage::showRequest()
{
    hideRows(0, m_model->rowCount() - 1, true);
}

void FilesPage::hideRows(int first, int last, bool reveal)
{
    const int chosen = m_requests->currentIndex();
    const auto &all = requestsShown();
    const llmscope::Request *r = chosen > 0 && size_t(chosen) <= all.size() ? &all[size_t(chosen - 1)] : nullptr;
    if (!r && !reveal)
        return; // every round shown: nothing to hide
    for (int row = first; row <= last; ++row) {
        const qint64 round = m_model->index(row, 0).data(DumpTreeModel::RoundRowRole).toLongLong();
        m_tree->setRowHidden(row, {}, r && !std::binary_search(r->rounds.begin(), r->rounds.end(), int64_t(round)));
    }
}

void FilesPage::follow(SessionDocument *doc)
{
    m_doc = doc;
    m_model->follow(doc);
    connect(doc, &SessionDocument::sourceChanged, this, [this] {
        m_requests->setCurrentIndex(0);
        listRequests();
    });
    connect(doc, &SessionDocument::roundsAdded, this, [this](const DumpRounds::Chunk &chunk) {
        if (!chunk.requests.empty())
            listRequests();
    });
    listRequests();
    auto sayWhose = [this, doc] { m_whose->setText(doc->dumpRootWords()); };
    connect(doc, &SessionDocument::sourceChanged, this, sayWhose);
    connect(doc, &SessionDocument::roundsAdded, this, sayWhose); // the root is set after the source
    connect(doc, &SessionDocument::resultChanged, this, sayWhose);
    sayWhose();
    connect(doc, &SessionDocument::sourceChanged, this, [this] {
        m_details->clear();
        m_firstOpened = false;
    });
    connect(doc, &SessionDocument::roundsAdded, this, [this] {
        if (m_model->rowCount() > 0 && !std::exchange(m_firstOpened, true))
            m_tree->expand(m_model->index(0, 0));
    });
    if (m_model->rowCount() > 0 && !std::exchange(m_firstOpened, true)) // the document's files already
        m_tree->expand(m_model->index(0, 0));
}

void FilesPage::follow(Cursor *cursor)
{
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, cursor,
            [this, cursor](const QModelIndex &cur) {
                const QString op = cur.data(DumpTreeModel::OpIdRole).toString();
                if (op.isEmpty())
                    return;
                cursor->setRound(cur.data(DumpTreeModel::RoundRole).toLongLong(), this);
                cursor->setOp(op, this);
            });
}

void FilesPage::openRounds()
{
    m_tree->expandToDepth(0);
}

void FilesPage::showDetails()
{
    const QModelIndex cur = m_tree->currentIndex();
    const QString tip = m_model->data(cur.siblingAtColumn(0), Qt::ToolTipRole).toString();
    if (!cur.isValid() || tip.isEmpty()) {
        m_details->clear();
        return;
    }
    QString html = QStringLiteral("<h3>%1</h3><table>").arg(cur.siblingAtColumn(0).data().toString().toHtmlEscaped());
    for (int c = 1; c < DumpTreeModel::ColumnCount; ++c)
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                    .arg(m_model->headerData(c, Qt::Horizontal).toString(),
                         cur.siblingAtColumn(c).data().toString().toHtmlEscaped());
    html += QStringLiteral("</table><p><small>%1</small></p>").arg(tip.toHtmlEscaped());
    m_details->setHtml(html);
}
