#include "app/window/compare_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>

#include "app/window/form_rows.h"
#include "core/dump/token_record.h"
#include "views/dump_tree_model.h"

namespace {

// The requests the folder's program served, in the chooser; hidden with its label where there
// is nothing to choose (one sequence, or a dump that records none).
void listRequests(QComboBox *box, const QString &folder)
{
    if (box->property("folder").toString() == folder && box->count() > 0)
        return; // the same folder: the request chosen stays
    box->setProperty("folder", folder);
    std::vector<llmscope::Request> requests;
    try {
        if (!folder.isEmpty())
            requests = llmscope::requestsOf(llmscope::readTokenRecords(folder.toStdString()));
    } catch (const std::exception &) {
        // compare says what is wrong with the folder
    }
    box->clear();
    box->addItem(CompareDialog::tr("The whole dump"), 0);
    for (const llmscope::Request &r : requests)
        box->addItem(DumpTreeModel::describe(r), r.number);
    const bool choice = llmscope::servesRequests(requests);
    box->setVisible(choice);
    if (QWidget *label = box->property("label").value<QWidget *>())
        label->setVisible(choice);
}

llmscope::RequestChoice chosen(const QComboBox *box)
{
    return llmscope::RequestChoice{box->isVisibleTo(box->parentWidget()) ? box->currentData().toInt() : 0, -1};
}

} // namespace

CompareDialog::CompareDialog(QWidget *parent)
    : QDialog(parent), m_golden(new QLineEdit(this)), m_test(new QLineEdit(this)),
      m_goldenRequests(new QComboBox(this)), m_testRequests(new QComboBox(this))
{
    setWindowTitle(tr("Compare a golden dump with a test dump"));
    auto *form = new QFormLayout(this);
    auto row = [this](QLineEdit *e, QComboBox *requests) {
        auto *h = new QHBoxLayout;
        auto *browse = new QPushButton(tr("..."), this);
        h->addWidget(e, 1);
        h->addWidget(browse);
        connect(browse, &QPushButton::clicked, this, [this, e, requests] {
            const QString dir = QFileDialog::getExistingDirectory(this, tr("Dump folder"));
            if (!dir.isEmpty()) {
                e->setText(dir);
                listRequests(requests, dir);
            }
        });
        connect(e, &QLineEdit::editingFinished, this, [e, requests] { listRequests(requests, e->text()); });
        return h;
    };
    addFormRow(form, tr("&Golden (reference):"), row(m_golden, m_goldenRequests), m_golden);
    form->addRow(tr("Golden's request:"), m_goldenRequests);
    addFormRow(form, tr("&Test:"), row(m_test, m_testRequests), m_test);
    form->addRow(tr("Test's request:"), m_testRequests);
    for (QComboBox *box : {m_goldenRequests, m_testRequests}) {
        box->setToolTip(tr("The program served several requests (llama-server's slots): compare one of them, its rows "
                           "cut out of the rounds it shared with others"));
        box->setProperty("label", QVariant::fromValue<QWidget *>(form->labelForField(box)));
        listRequests(box, {});
    }
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Compare"));
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    resize(640, sizeHint().height());
}

QString CompareDialog::golden() const
{
    return m_golden->text();
}

QString CompareDialog::test() const
{
    return m_test->text();
}

llmscope::RequestChoice CompareDialog::goldenRequest() const
{
    return chosen(m_goldenRequests);
}

llmscope::RequestChoice CompareDialog::testRequest() const
{
    return chosen(m_testRequests);
}
