// Session > Hunt and Session > Quantization report ask the same: a golden and a test launch
// (presets, recent launches or plain command lines, each may begin with NAME=value settings),
// settings for both, rounds, and the folder for the dumps; the report also asks for its size
// budget. Remembers what was typed.
#pragma once
#include <QDialog>

#include "app/hunt/hunt_action.h"

class QComboBox;
class QLabel;
class QLineEdit;

class HuntDialog : public QDialog {
    Q_OBJECT
public:
    enum class Purpose { Hunt, QuantReport };
    explicit HuntDialog(QWidget *parent = nullptr, Purpose purpose = Purpose::Hunt);
    // False (and error says why) when a side cannot be read.
    bool sides(HuntSide *golden, HuntSide *test, QString *error) const;
    QString folder() const;
    QString rounds() const;
    QString budget() const; // the quantization report's --budget ("10%")
    QComboBox *goldenBox() const { return m_golden; }
    QLineEdit *budgetEdit() const { return m_budget; }
    QComboBox *testBox() const { return m_test; }
    QLineEdit *folderEdit() const { return m_folder; }
    QLineEdit *roundsEdit() const { return m_rounds; }
    QLineEdit *environmentEdit() const { return m_env; } // NAME=value for both programs
    QLabel *errorLabel() const { return m_error; }

private:
    void accept() override;

    Purpose m_purpose;
    QString m_group; // where its fields are remembered: "hunt", "quant"
    QComboBox *m_golden, *m_test;
    QLineEdit *m_env, *m_rounds, *m_folder, *m_budget;
    QLabel *m_error;
};
