#include "views/unpaired_view.h"
#include "document/reason_words.h"

#include "document/session_document.h"

#include <QDir>
#include <QFileDialog>
#include <QGridLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSaveFile>

#include <map>
#include <set>

using namespace llmscope;

namespace {
// One line per op: its id, op name and how many of its tensors in which rounds lack a partner.
void fill(QListWidget *list, const std::vector<TensorRecord> &records)
{
    struct Op {
        std::string name;
        int tensors = 0;
        std::set<int64_t> rounds;
    };
    std::map<std::string, Op> ops;
    for (const TensorRecord &r : records) {
        Op &op = ops[r.opId];
        op.name = r.opName;
        ++op.tensors;
        op.rounds.insert(r.exec);
    }
    list->clear();
    for (const auto &[id, op] : ops) {
        QStringList rounds;
        for (int64_t x : op.rounds)
            rounds << QString::number(x);
        auto *item = new QListWidgetItem(
            UnpairedView::tr("%1 %2: %n tensor(s), round %3", nullptr, op.tensors)
                .arg(QString::fromStdString(id), QString::fromStdString(op.name), rounds.join(QLatin1Char(','))),
            list);
        item->setData(Qt::UserRole, QString::fromStdString(id));
    }
}
} // namespace

UnpairedView::UnpairedView(QWidget *parent)
    : QWidget(parent), m_status(new QLabel(this)), m_golden(new QListWidget(this)), m_test(new QListWidget(this)),
      m_pairs(new QListWidget(this)), m_pair(new QPushButton(tr("&Pair"), this)),
      m_remove(new QPushButton(tr("Remove pair"), this)), m_save(new QPushButton(tr("Save mapping..."), this)),
      m_compare(new QPushButton(tr("Compare again with these pairs"), this))
{
    m_status->setWordWrap(true);
    m_pair->setToolTip(tr("Pair the golden operation selected on the left with the test operation on the right"));
    m_save->setToolTip(tr("Save the pairs as a JSON file for llmscope compare --mapping"));
    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(4, 4, 4, 4);
    grid->addWidget(m_status, 0, 0, 1, 2);
    grid->addWidget(new QLabel(tr("Only in golden:"), this), 1, 0);
    grid->addWidget(new QLabel(tr("Only in test:"), this), 1, 1);
    grid->addWidget(m_golden, 2, 0);
    grid->addWidget(m_test, 2, 1);
    grid->addWidget(m_pair, 3, 0, 1, 2);
    grid->addWidget(new QLabel(tr("Pairs made by hand (golden -> test):"), this), 4, 0, 1, 2);
    grid->addWidget(m_pairs, 5, 0, 1, 2);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_remove);
    buttons->addStretch();
    buttons->addWidget(m_save);
    buttons->addWidget(m_compare);
    grid->addLayout(buttons, 6, 0, 1, 2);
    grid->setRowStretch(2, 3);
    grid->setRowStretch(5, 1);

    connect(m_pair, &QPushButton::clicked, this, &UnpairedView::pairSelected);
    connect(m_remove, &QPushButton::clicked, this, [this] {
        if (QListWidgetItem *i = m_pairs->currentItem()) {
            m_mapping.erase(i->data(Qt::UserRole).toString().toStdString());
            refreshPairs();
        }
    });
    connect(m_save, &QPushButton::clicked, this, &UnpairedView::chooseAndSaveMapping);
    connect(m_compare, &QPushButton::clicked, this, [this] {
        const QString path = m_scratch.filePath(QStringLiteral("mapping.json"));
        QString error;
        if (!m_scratch.isValid())
            m_status->setText(tr("Could not make a temporary folder for the pairs: %1").arg(m_scratch.errorString()));
        else if (saveMapping(path, &error))
            emit compareAgain(path);
        else
            m_status->setText(error);
    });
    setResult(nullptr);
}

void UnpairedView::setResult(const CompareResult *r)
{
    // Other dumps: the pairs made were for those. Emptied in between (a comparison run again
    // with these pairs starts from nothing shown), the pairs wait for the result.
    const std::string roots = r ? r->goldenRoot + "\n" + r->myRoot : m_roots;
    if (roots != m_roots) {
        m_mapping.clear();
        m_roots = roots;
    }
    fill(m_golden, r ? r->onlyGolden : std::vector<TensorRecord>{});
    fill(m_test, r ? r->onlyMy : std::vector<TensorRecord>{});
    if (!r)
        m_status->setText(tr("The tensors a comparison cannot pair are listed here."));
    else if (r->onlyGolden.empty() && r->onlyMy.empty())
        m_status->setText(tr("Every tensor found a partner."));
    else
        m_status->setText(tr("%1 golden and %2 test tensors have no partner (matched %3). Pick an operation on each "
                             "side and Pair them; the pairs are compared tensor by tensor, round by round.")
                              .arg(r->onlyGolden.size())
                              .arg(r->onlyMy.size())
                              .arg(reasonWords(r->method)));
    if (r) {
        refreshPairs();
    } else { // nothing compared: the pairs kept show again with their dumps' result
        m_pairs->clear();
        for (QPushButton *b : {m_remove, m_save, m_compare})
            b->setEnabled(false);
    }
}

bool UnpairedView::pairSelected()
{
    const QListWidgetItem *g = m_golden->currentItem(), *t = m_test->currentItem();
    if (!g || !t)
        return false;
    m_mapping[g->data(Qt::UserRole).toString().toStdString()] = t->data(Qt::UserRole).toString().toStdString();
    refreshPairs();
    return true;
}

void UnpairedView::refreshPairs()
{
    m_pairs->clear();
    for (const auto &[g, t] : m_mapping) {
        auto *item = new QListWidgetItem(
            QStringLiteral("%1 -> %2").arg(QString::fromStdString(g), QString::fromStdString(t)), m_pairs);
        item->setData(Qt::UserRole, QString::fromStdString(g));
    }
    m_remove->setEnabled(!m_mapping.empty());
    m_save->setEnabled(!m_mapping.empty());
    m_compare->setEnabled(!m_mapping.empty());
}

bool UnpairedView::saveMapping(const QString &path, QString *error) const
{
    QSaveFile f(path); // all or nothing: a full disk leaves no half-written mapping
    const std::string text = writeOpMapping(m_mapping);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), qint64(text.size())) != qint64(text.size()) ||
        !f.commit()) {
        if (error)
            *error = tr("Could not write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

void UnpairedView::chooseAndSaveMapping()
{
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save mapping"), QStringLiteral("mapping.json"), tr("JSON (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    m_status->setText(saveMapping(path, &error) ? tr("Saved %1: use it with llmscope compare --mapping %1").arg(path)
                                                : error);
}

void UnpairedView::follow(SessionDocument *doc)
{
    connect(doc, &SessionDocument::sourceChanged, this, [this] { setResult(nullptr); });
    connect(doc, &SessionDocument::resultChanged, this, [this, doc](SessionDocument::Result which) {
        if (which == SessionDocument::Result::Comparison)
            setResult(doc->results().comparison.get());
    });
    if (doc->results().comparison) // what the document holds already
        setResult(doc->results().comparison.get());
}
