#include "compare_dialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>

#include "form_rows.h"

CompareDialog::CompareDialog(QWidget *parent) : QDialog(parent), m_golden(new QLineEdit(this)), m_test(new QLineEdit(this))
{
    setWindowTitle(tr("Compare a golden dump with a test dump"));
    auto *form = new QFormLayout(this);
    auto row = [this](QLineEdit *e) {
        auto *h = new QHBoxLayout;
        auto *browse = new QPushButton(tr("..."), this);
        h->addWidget(e, 1);
        h->addWidget(browse);
        connect(browse, &QPushButton::clicked, this, [this, e] {
            const QString dir = QFileDialog::getExistingDirectory(this, tr("Dump folder"));
            if (!dir.isEmpty())
                e->setText(dir);
        });
        return h;
    };
    addFormRow(form, tr("&Golden (reference):"), row(m_golden), m_golden);
    addFormRow(form, tr("&Test:"), row(m_test), m_test);
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
