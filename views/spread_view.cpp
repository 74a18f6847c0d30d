#include "views/spread_view.h"
#include "document/reason_words.h"

#include <QCheckBox>
#include <QSettings>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "document/config_words.h"
#include "document/cursor.h"
#include "document/session_document.h"
#include "views/spread_table_model.h"

using namespace llmscope;

SpreadView::SpreadView(QWidget *parent)
    : QWidget(parent), m_model(new SpreadTableModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_table(new QTableView(this)), m_summary(new QLabel(this)), m_empty(new QLabel(this)),
      m_differing(new QCheckBox(tr("&Only where the runs differ"), this))
{
    auto *layout = new QVBoxLayout(this);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_summary->setText(tr("Run one prompt several ways side by side (Session > Spread)."));
    layout->addWidget(m_summary);
    layout->addWidget(m_differing);
    layout->addWidget(m_empty);
    layout->addWidget(m_table, 1);
    m_empty->setWordWrap(true);
    m_empty->setStyleSheet(QStringLiteral("color: #a05000"));
    m_empty->setText(tr("No operation differs between the runs: untick the box above to see every one."));
    m_empty->hide();
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterRole(SpreadTableModel::DiffersRole);
    m_proxy->setFilterKeyColumn(SpreadTableModel::OpColumn);
    m_table->setModel(m_proxy);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6); // many rows in view
    m_table->horizontalHeader()->setStretchLastSection(false);
    auto filter = [this](bool only) {
        m_proxy->setFilterFixedString(only ? QStringLiteral("true") : QString());
        showFiltered();
    };
    connect(m_differing, &QCheckBox::toggled, this, filter);
    // the user's choice, remembered (a language switch rebuilds the window; a new one keeps it)
    const QString key = QStringLiteral("spread/differingOnly");
    const bool only = QSettings().value(key, true).toBool();
    m_differing->setChecked(only);
    filter(only);
    connect(m_differing, &QCheckBox::toggled, this, [key](bool on) { QSettings().setValue(key, on); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &i) {
        if (i.isValid())
            emit opPicked(i.data(SpreadTableModel::OpIdRole).toString(),
                          i.data(SpreadTableModel::RoundRole).toLongLong());
    });
}

void SpreadView::setResult(std::shared_ptr<const SpreadResult> r, const QString &folder)
{
    m_model->setResult(r);
    showFiltered();
    if (!r) {
        m_summary->clear();
        m_summary->setToolTip({});
        return;
    }
    QString text = tr("<b>%n run(s)</b>, every two compared op by op", nullptr, int(r->runs.size()));
    if (r->departs()) {
        const SpreadOp &o = r->ops[size_t(r->firstDeparture)];
        text += tr("<br>First departure: <b>round %1, %2</b>: <b>%3 departs</b> (%4)<br>%5")
                    .arg(o.round)
                    .arg(QString::fromStdString(o.label()).toHtmlEscaped())
                    .arg(SpreadTableModel::runName(r->departingRun))
                    .arg(QString::fromStdString(r->runs[size_t(r->departingRun)].command).toHtmlEscaped(),
                         reasonWords(o.why).toHtmlEscaped());
    } else {
        text += tr("<br>No run departs beyond its standard: runs of one command bit-identical, the others within "
                   "ggml's budgets.");
    }
    if (!r->nondeterministic.empty()) {
        const SpreadOp &o = r->ops[r->nondeterministic.front()];
        text += tr("<br>Nondeterministic: %n op output(s) differ between runs of one command; the first: round %1, "
                   "%2 (%3 run(s) differ from the first).",
                   nullptr, int(r->nondeterministic.size()))
                    .arg(o.round)
                    .arg(QString::fromStdString(o.label()).toHtmlEscaped())
                    .arg(o.differing);
    }
    QString configs; // the summary's tooltip: each run's differences in full
    for (size_t k = 1; k < r->configurations.size(); ++k) // what differs before any tensor
        if (const auto &d = r->configurations[k]) {
            const QString a = SpreadTableModel::runName(0), b = SpreadTableModel::runName(int(k));
            text += tr("<br>Configuration, %1 against %2: %3").arg(b, a, configDiffWords(*d).toHtmlEscaped());
            configs += (configs.isEmpty() ? QString() : QStringLiteral("\n\n")) +
                QString::fromStdString(configDiffText(*d, a.toStdString(), b.toStdString())).trimmed();
        }
    m_summary->setToolTip(configs);
    text +=
        tr("<br>Colours: <span style=\"background:#d24f32\">&nbsp;red&nbsp;</span> the runs part beyond their "
           "standard here; <span style=\"background:#91c1e4\">&nbsp;blue&nbsp;</span> they differ within it; white: "
           "bit-identical. Deeper: farther apart.");
    text += tr("<br>Dumps and reports (spread.json, spread.csv) in %1").arg(folder.toHtmlEscaped());
    m_summary->setText(text);
    if (r->departs()) { // the first departure in view, picked
        const QModelIndex at = m_proxy->mapFromSource(m_model->index(r->firstDeparture, SpreadTableModel::OpColumn));
        m_table->scrollTo(at);
        m_table->setCurrentIndex(at);
    }
}

void SpreadView::showFailure(const QString &why)
{
    setResult(nullptr, {});
    m_summary->setText(tr("<b style=\"color:#b3261e\">The spread failed:</b> %1<br>No result is shown: an earlier "
                          "spread's would read as this one's.")
                           .arg(why.toHtmlEscaped()));
}

void SpreadView::showFiltered()
{
    m_table->resizeColumnsToContents(); // to the rows shown: an op's label whole
    m_empty->setVisible(m_model->rowCount() > 0 && m_proxy->rowCount() == 0);
}

void SpreadView::selectOp(const QString &opId)
{
    int row = m_model->rowOf(opId, m_round);
    for (int r = 0; row < 0 && r < m_model->rowCount(); ++r)
        if (m_model->index(r, 0).data(SpreadTableModel::OpIdRole).toString() == opId)
            row = r;
    const QModelIndex at = m_proxy->mapFromSource(m_model->index(row, SpreadTableModel::OpColumn));
    if (!at.isValid() || at == m_table->currentIndex())
        return;
    const QSignalBlocker quiet(m_table->selectionModel()); // the cursor's own pick, not said back
    m_table->setCurrentIndex(at);
    m_table->scrollTo(at);
}

void SpreadView::follow(SessionDocument *doc)
{
    connect(doc, &SessionDocument::resultChanged, this, [this, doc](SessionDocument::Result which) {
        if (which == SessionDocument::Result::Spread)
            setResult(doc->results().spread, doc->results().spreadFolder);
    });
    connect(doc, &SessionDocument::sourceChanged, this, [this] { setResult(nullptr, {}); });
    if (doc->results().spread) // what it holds already (a window built on a session under way)
        setResult(doc->results().spread, doc->results().spreadFolder);
}

void SpreadView::follow(Cursor *cursor)
{
    connect(this, &SpreadView::opPicked, cursor, [this, cursor](const QString &op, qint64 round) {
        cursor->setRound(round, this);
        cursor->setOp(op, this);
    });
    connect(cursor, &Cursor::roundChanged, this, [this](qint64 round) { m_round = round; });
    connect(cursor, &Cursor::opChanged, this, [this](const QString &op, const QObject *by) {
        if (by != this)
            selectOp(op);
    });
}
