// Session > Spread asks what `llmscope spread` takes: the command lines (one a line, typed or
// added from the launch presets and recent launches), a flag
// and the values to vary it by ("-t 1,2,4"), how often to run each, the rounds and the
// folder. It says at once what is wrong (too few runs, a --vary without values), and
// remembers what was typed.
#pragma once
#include <QDialog>

#include "app/spread/spread_plan.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QCheckBox;
class QSpinBox;

class SpreadDialog : public QDialog {
    Q_OBJECT
public:
    explicit SpreadDialog(QWidget *parent = nullptr);
    // What was asked; false (and error says why) when it cannot run.
    bool request(spread::Request *out, QString *error) const;

    QPlainTextEdit *commandsEdit() const { return m_commands; }
    QLineEdit *varyEdit() const { return m_vary; }
    QLineEdit *environmentEdit() const { return m_env; } // NAME=value for every run
    QSpinBox *repeatBox() const { return m_repeat; }
    QCheckBox *tensorsBox() const { return m_tensors; }
    QCheckBox *kvCacheBox() const { return m_kvCache; }
    QCheckBox *fusionBox() const { return m_fusion; }
    QLineEdit *roundsEdit() const { return m_rounds; }
    QSpinBox *sequenceBox() const { return m_sequence; } // --seq: -1 every request (the whole runs)
    QLineEdit *folderEdit() const { return m_folder; }
    QLabel *errorLabel() const { return m_error; }
    QLabel *runsLabel() const { return m_runs; }
    QComboBox *addBox() const { return m_add; } // a preset or recent launch, added as a line
    // The program's command line of a launch line (its environment as "env K=V ..."); empty
    // when it does not read.
    static QString commandOf(const QString &launchLine);

private:
    void accept() override;
    void update(); // the runs it makes, or what is wrong

    QPlainTextEdit *m_commands;
    QLineEdit *m_env, *m_vary, *m_rounds, *m_folder;
    QSpinBox *m_repeat, *m_sequence;
    QComboBox *m_add;
    QLabel *m_runs, *m_error;
    QCheckBox *m_tensors, *m_kvCache, *m_fusion;
};
