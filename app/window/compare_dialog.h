// Session > Compare dumps: a golden folder and a test folder, each typed or browsed.
#pragma once
#include <QDialog>

class QLineEdit;

class CompareDialog : public QDialog {
    Q_OBJECT
public:
    explicit CompareDialog(QWidget *parent = nullptr);
    QString golden() const;
    QString test() const;

private:
    QLineEdit *m_golden, *m_test;
};
