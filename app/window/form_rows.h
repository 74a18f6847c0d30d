// A form row whose field is a layout (a line edit and its "..." button): QFormLayout gives
// such a label no buddy, so its mnemonic ("&Command:") would show as a literal ampersand.
// The label here is the buddy of the row's first field, and Alt+letter reaches it.
#pragma once
#include <QFormLayout>
#include <QLabel>

inline void addFormRow(QFormLayout *form, const QString &label, QLayout *row, QWidget *buddy)
{
    auto *l = new QLabel(label, form->parentWidget());
    l->setBuddy(buddy);
    form->addRow(l, row);
}
