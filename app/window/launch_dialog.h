// Launch a program under the probe: the program and its arguments, working folder,
// environment, and every `llmscope dump` option as a widget. The equivalent command line is
// shown as it changes and can be copied; a command line pasted there fills the dialog.
// Presets are saved by name and recent launches offered (LaunchHistory keeps both).
#pragma once
#include <QDialog>

#include "app/session/launch_plan.h"
#include "core/launch/dump_options.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLayout;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;
class QTableWidget;

class LaunchDialog : public QDialog {
    Q_OBJECT
public:
    explicit LaunchDialog(QWidget *parent = nullptr);

    // What the dialog describes; throws llmscope::Error when the options are invalid.
    llmscope::DumpOptions options() const;
    LaunchSettings settings() const;
    void setOptions(const llmscope::DumpOptions &o, const LaunchSettings &s = {});

    // "K=V ... llmscope dump --exec ... [options]" (LaunchHistory's launch line).
    QString commandLine() const;
    // Fills the dialog from such a line; false (and `error` says why) when it cannot be read.
    bool setCommandLine(const QString &line, QString *error = nullptr);

    QLineEdit *commandEdit() const { return m_command; }
    QLineEdit *commandLineEdit() const { return m_line; }
    QLineEdit *idsEdit() const { return m_ids; }
    QLineEdit *workDirEdit() const { return m_workDir; }
    QLineEdit *outputEdit() const { return m_output; }

private:
    QWidget *buildProgramBox();
    QWidget *buildDumpBox();
    QWidget *buildOwnBox();
    QWidget *buildLineBox();
    QLayout *buildPresetRow();
    void followFields();
    void updateCommandLine();
    void commandLineEdited();
    void savePreset();
    void loadPreset(const QString &name);
    void deletePreset();
    void accept() override;

    QLineEdit *m_command, *m_workDir, *m_ids, *m_rounds, *m_opNames, *m_devices, *m_output, *m_config, *m_followTokens,
        *m_watch, *m_line;
    QCheckBox *m_types[8];
    QCheckBox *m_descOnly, *m_child, *m_kv, *m_tiling, *m_nanInf, *m_symlink, *m_statsCsv, *m_statsWithData,
        *m_children, *m_keepFusion, *m_noFusion;
    QComboBox *m_time, *m_part, *m_log, *m_read, *m_presets, *m_recent;
    QSpinBox *m_timeout;
    QTableWidget *m_env;
    QLabel *m_error;
    bool m_filling = false, m_editingLine = false;
};
