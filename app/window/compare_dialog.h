// Session > Compare dumps: a golden folder and a test folder, each typed or browsed; where a
// folder's program served several requests (llama-server's slots), one request of it.
#pragma once
#include <QDialog>

#include "core/requests/requests.h"

class QComboBox;
class QLineEdit;

class CompareDialog : public QDialog {
    Q_OBJECT
public:
    explicit CompareDialog(QWidget *parent = nullptr);
    QString golden() const;
    QString test() const;
    // The request chosen of each side; none: the whole dump.
    llmscope::RequestChoice goldenRequest() const;
    llmscope::RequestChoice testRequest() const;
    QComboBox *goldenRequests() const { return m_goldenRequests; }
    QComboBox *testRequests() const { return m_testRequests; }
    QLineEdit *goldenEdit() const { return m_golden; }
    QLineEdit *testEdit() const { return m_test; }

private:
    QLineEdit *m_golden, *m_test;
    QComboBox *m_goldenRequests, *m_testRequests;
};
