// The tensors a comparison could not pair, operation by operation on each side; the user
// pairs a golden op with a test op by hand, saves the pairs as a `--mapping` file (the one
// `llmscope compare --mapping` reads) and compares again with them.
#pragma once
#include <QTemporaryDir>
#include <QWidget>

#include "core/compare/compare_run.h"
#include "core/compare/matching.h"

class SessionDocument;
class QLabel;
class QListWidget;
class QPushButton;

class UnpairedView : public QWidget {
    Q_OBJECT
public:
    explicit UnpairedView(QWidget *parent = nullptr);
    // Keeps the pairs made so far when the same two dumps are compared again.
    void setResult(const llmscope::CompareResult *r);
    void follow(SessionDocument *doc); // the comparison shown
    QListWidget *goldenList() const { return m_golden; }
    QListWidget *testList() const { return m_test; }
    QListWidget *pairList() const { return m_pairs; }
    QPushButton *pairButton() const { return m_pair; }
    QPushButton *compareButton() const { return m_compare; }
    const llmscope::OpMapping &mapping() const { return m_mapping; }
    // Pairs the selected golden op with the selected test op; false when either is missing.
    bool pairSelected();
    // Writes the pairs as a mapping file; false (and error says why) when it cannot.
    bool saveMapping(const QString &path, QString *error) const;
    void chooseAndSaveMapping();

signals:
    // Compare the same two dumps again with this mapping file.
    void compareAgain(const QString &mappingFile);

private:
    void refreshPairs();

    QLabel *m_status;
    QListWidget *m_golden, *m_test, *m_pairs;
    QPushButton *m_pair, *m_remove, *m_save, *m_compare;
    llmscope::OpMapping m_mapping;
    std::string m_roots; // the dumps the pairs are for
    QTemporaryDir m_scratch; // Compare again's mapping file, removed with the view
};
