#include "app/spread/spread_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include "app/session/launch_history.h"
#include "app/session/launch_plan.h"
#include "app/window/form_rows.h"
#include "core/launch/dump_options.h"
#include "core/util/error.h"

SpreadDialog::SpreadDialog(QWidget *parent)
    : QDialog(parent), m_commands(new QPlainTextEdit(this)), m_env(new QLineEdit(this)), m_vary(new QLineEdit(this)),
      m_rounds(new QLineEdit(this)), m_folder(new QLineEdit(this)), m_repeat(new QSpinBox(this)),
      m_sequence(new QSpinBox(this)), m_add(new QComboBox(this)), m_runs(new QLabel(this)), m_error(new QLabel(this)),
      m_tensors(new QCheckBox(tr("Dump every &tensor at once (no statistics first)"), this)),
      m_kvCache(new QCheckBox(tr("Dump the &KV cache too (compared position by position)"), this)),
      m_fusion(new QCheckBox(tr("Each run &unfused too: the backends' fusion on and off"), this))
{
    setWindowTitle(tr("Spread: one prompt, several runs side by side"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Each run's statistics are dumped and every two runs compared op by op; the rounds "
                                "where runs part are dumped again with their tensors and measured. Runs of one "
                                "command must be bit-identical; runs of different commands are held to ggml's "
                                "budgets. The first op where they part is named, with the run that departs."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto *form = new QFormLayout;
    m_commands->setPlaceholderText(tr(
        "one command line a line, e.g. /path/to/llama-simple -m model.gguf -n 3 (a program's path, or a name in PATH)"));
    m_commands->setTabChangesFocus(true);
    m_vary->setPlaceholderText(tr("e.g. -t 1,2,4   --batch 1,512   --device cpu,vulkan   --flash-attn on,off"));
    m_repeat->setRange(1, 100);
    m_rounds->setPlaceholderText(tr("all"));
    form->addRow(tr("&Commands:"), m_commands);
    // A preset's or a recent launch's program, added as a line.
    m_add->addItem(tr("Add a preset or recent launch..."));
    for (const QString &name : LaunchHistory::presetNames())
        if (const QStringList p = LaunchHistory::preset(name); !p.isEmpty() && !commandOf(p[0]).isEmpty())
            m_add->addItem(tr("preset: %1").arg(name), commandOf(p[0]));
    for (const QString &r : LaunchHistory::recent())
        if (const QString c = commandOf(r.section(QLatin1Char('\n'), 0, 0)); !c.isEmpty())
            m_add->addItem(c, c);
    m_add->setEnabled(m_add->count() > 1);
    form->addRow(tr("&Add:"), m_add);
    connect(m_add, &QComboBox::activated, this, [this](int i) {
        if (i <= 0)
            return;
        QString text = m_commands->toPlainText().trimmed();
        m_commands->setPlainText(text + (text.isEmpty() ? QString() : QStringLiteral("\n")) +
                                 m_add->itemData(i).toString());
        m_add->setCurrentIndex(0);
    });
    m_env->setPlaceholderText(tr("NAME=value ... for every run, e.g. OMP_NUM_THREADS=4"));
    m_env->setToolTip(tr("Settings for every run. A command line may also begin with its own, as in a shell: "
                         "GGML_VK_VISIBLE_DEVICES=0 ./llama-simple ... (those win)."));
    form->addRow(tr("E&nvironment:"), m_env);
    form->addRow(tr("&Vary:"), m_vary);
    form->addRow(tr("&Repeat each:"), m_repeat);
    form->addRow(tr("Roun&ds:"), m_rounds);
    m_sequence->setRange(-1, 1000000);
    m_sequence->setSpecialValueText(tr("every request"));
    m_sequence->setToolTip(
        tr("llmscope spread --seq S: each run's request in sequence S (llama-server's slot S) alone, "
           "its rows cut out of the rounds it shared with other slots, every tensor in one pass"));
    form->addRow(tr("&Sequence (slot):"), m_sequence);
    m_tensors->setToolTip(tr("llmscope spread --tensors: every run's tensors in one pass. Takes more disk; the "
                             "prompt at once against one token a round dumps them so anyway."));
    form->addRow(QString(), m_tensors);
    form->addRow(QString(), m_kvCache);
    m_fusion->setToolTip(tr("llmscope spread --fusion on,off: where the two part, a fused kernel departs from the "
                            "unfused ops it stands for (GGML_CPU_DISABLE_FUSION, GGML_VK_DISABLE_FUSION, "
                            "GGML_CUDA_DISABLE_FUSION)."));
    form->addRow(QString(), m_fusion);
    auto *folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folder, 1);
    auto *browse = new QPushButton(tr("..."), this);
    folderRow->addWidget(browse);
    addFormRow(form, tr("&Folder:"), folderRow, m_folder);
    layout->addLayout(form);
    layout->addWidget(m_runs);
    m_error->setStyleSheet(QStringLiteral("color: #b3261e"));
    m_error->setWordWrap(true);
    // a line kept for it: the fields do not move under the pointer as it comes and goes
    m_error->setMinimumHeight(m_error->fontMetrics().lineSpacing());
    layout->addWidget(m_error);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Run"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &SpreadDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SpreadDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Folder for the spread's dumps"), m_folder->text());
        if (!dir.isEmpty())
            m_folder->setText(dir);
    });
    QSettings s;
    m_commands->setPlainText(s.value(QStringLiteral("spread/commands")).toString());
    m_env->setText(s.value(QStringLiteral("spread/environment")).toString());
    m_vary->setText(s.value(QStringLiteral("spread/vary")).toString());
    m_repeat->setValue(s.value(QStringLiteral("spread/repeat"), 1).toInt());
    m_tensors->setChecked(s.value(QStringLiteral("spread/tensors"), false).toBool());
    m_kvCache->setChecked(s.value(QStringLiteral("spread/kvCache"), false).toBool());
    m_fusion->setChecked(s.value(QStringLiteral("spread/fusion"), false).toBool());
    m_rounds->setText(s.value(QStringLiteral("spread/rounds")).toString());
    m_sequence->setValue(s.value(QStringLiteral("spread/sequence"), -1).toInt());
    // in the home folder, as the hunt's: a window started from a menu has no working folder of the user's
    m_folder->setText(
        s.value(QStringLiteral("spread/folder"), QDir::home().filePath(QStringLiteral("llmscope_spread"))).toString());
    connect(m_commands, &QPlainTextEdit::textChanged, this, &SpreadDialog::update);
    connect(m_env, &QLineEdit::textChanged, this, &SpreadDialog::update);
    connect(m_vary, &QLineEdit::textChanged, this, &SpreadDialog::update);
    connect(m_repeat, &QSpinBox::valueChanged, this, &SpreadDialog::update);
    connect(m_fusion, &QCheckBox::toggled, this, &SpreadDialog::update);
    update();
    resize(720, sizeHint().height());
}

QString SpreadDialog::commandOf(const QString &launchLine)
{
    llmscope::DumpOptions o;
    LaunchSettings s;
    QString error;
    if (!LaunchHistory::parseLaunchLine(launchLine, false, &o, &s, &error) || o.command.empty())
        return {};
    llmscope::CommandLine c{{}, o.command}; // K=V ... the command, as typed
    for (auto it = s.environment.begin(); it != s.environment.end(); ++it)
        c.environment.emplace_back(it.key().toStdString(), it.value().toStdString());
    return QString::fromStdString(llmscope::joinCommandLine(c));
}

bool SpreadDialog::request(spread::Request *out, QString *error) const
{
    spread::Request r;
    llmscope::Environment every;
    try {
        every = llmscope::parseEnvironment(m_env->text().toStdString());
    } catch (const llmscope::Error &e) {
        *error = tr("Environment: %1").arg(QString::fromUtf8(e.what()));
        return false;
    }
    int n = 0;
    for (const QString &line : m_commands->toPlainText().split(QLatin1Char('\n'))) {
        ++n;
        if (line.trimmed().isEmpty())
            continue;
        // Read as every run reads it (llmscope dump --exec), the field's settings first: the
        // line's own win.
        try {
            llmscope::CommandLine c = llmscope::parseCommandLine(line.trimmed().toStdString());
            if (!c.words.empty()) // found before anything runs, and said in the window's words
                findProgram(c.words.front());
            c.environment.insert(c.environment.begin(), every.begin(), every.end());
            r.commands.push_back(llmscope::joinCommandLine(c));
        } catch (const llmscope::Error &e) {
            *error = tr("Line %1 cannot be run: %2").arg(n).arg(QString::fromUtf8(e.what()));
            return false;
        }
    }
    try {
        spread::setVary(r, m_vary->text().toStdString());
    } catch (const llmscope::Error &) {
        *error = tr("Vary needs a flag and its values, as in -t 1,2,4.");
        return false;
    }
    r.repeat = m_repeat->value();
    r.tensors = m_tensors->isChecked();
    r.kvCache = m_kvCache->isChecked();
    if (m_sequence->value() >= 0) { // as --seq: tensors, one pass
        r.request = llmscope::RequestChoice{0, m_sequence->value()};
        r.tensors = true;
    }
    if (m_fusion->isChecked())
        r.fusion = {"on", "off"};
    r.rounds = m_rounds->text().trimmed().isEmpty() ? "all" : m_rounds->text().trimmed().toStdString();
    r.folder = m_folder->text().trimmed().toStdString();
    if (r.commands.empty()) {
        *error = tr("Give at least one command line.");
        return false;
    }
    if (r.runs().size() < 2) {
        *error = tr("A spread needs at least two runs: give two command lines, repeat each, or vary a flag.");
        return false;
    }
    if (r.folder.empty()) {
        *error = tr("Give a folder for the dumps.");
        return false;
    }
    *out = r;
    return true;
}

void SpreadDialog::update()
{
    spread::Request r;
    QString error;
    if (request(&r, &error)) {
        m_runs->setText(tr("%n run(s)", nullptr, int(r.runs().size())));
        m_error->clear();
    } else {
        m_runs->clear();
        // No command yet is where the dialog starts, not a mistake: OK says so if pressed.
        m_error->setText(m_commands->toPlainText().trimmed().isEmpty() ? QString() : error);
    }
}

void SpreadDialog::accept()
{
    spread::Request r;
    QString error;
    if (!request(&r, &error)) {
        m_error->setText(error);
        return;
    }
    QSettings s;
    s.setValue(QStringLiteral("spread/commands"), m_commands->toPlainText());
    s.setValue(QStringLiteral("spread/environment"), m_env->text());
    s.setValue(QStringLiteral("spread/vary"), m_vary->text());
    s.setValue(QStringLiteral("spread/repeat"), m_repeat->value());
    s.setValue(QStringLiteral("spread/tensors"), m_tensors->isChecked());
    s.setValue(QStringLiteral("spread/kvCache"), m_kvCache->isChecked());
    s.setValue(QStringLiteral("spread/sequence"), m_sequence->value());
    s.setValue(QStringLiteral("spread/fusion"), m_fusion->isChecked());
    s.setValue(QStringLiteral("spread/rounds"), m_rounds->text());
    s.setValue(QStringLiteral("spread/folder"), m_folder->text());
    QDialog::accept();
}
