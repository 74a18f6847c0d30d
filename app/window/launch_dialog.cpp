#include "app/window/launch_dialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTableWidget>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>

#include "app/session/launch_history.h"
#include "app/session/launch_plan.h"
#include "app/window/form_rows.h"
#include "app/window/screen_fit.h"
#include "core/util/error.h"

using namespace llmscope;

namespace {
const char *const kTypes[8] = {"model", "layer", "tensor", "stats", "op", "kernel", "cpu_profiling", "onnx"};
} // namespace

LaunchDialog::LaunchDialog(QWidget *parent)
    : QDialog(parent), m_command(new QLineEdit(this)), m_workDir(new QLineEdit(this)), m_ids(new QLineEdit(this)),
      m_rounds(new QLineEdit(this)), m_opNames(new QLineEdit(this)), m_devices(new QLineEdit(this)),
      m_output(new QLineEdit(this)), m_config(new QLineEdit(this)), m_followTokens(new QLineEdit(this)),
      m_watch(new QLineEdit(this)), m_line(new QLineEdit(this)),
      m_descOnly(new QCheckBox(tr("descriptions only (-sd)"), this)),
      m_child(new QCheckBox(tr("with children (-child)"), this)),
      m_kv(new QCheckBox(tr("KV cache too (--kv-cache)"), this)),
      m_tiling(new QCheckBox(tr("-tiling (op parameters)"), this)),
      m_nanInf(new QCheckBox(tr("only ops with NaN/Inf outputs (--nan-inf-only)"), this)),
      m_symlink(new QCheckBox(tr("identical tensors as links (-symlink)"), this)),
      m_statsCsv(new QCheckBox(tr("one statistic.csv per round (--stats-csv)"), this)),
      m_statsWithData(new QCheckBox(tr("payload and statistics in one file (--stats-with-data)"), this)),
      m_children(new QCheckBox(tr("probe child processes (--children)"), this)),
      m_keepFusion(new QCheckBox(tr("keep ggml's fusion (--keep-fusion)"), this)),
      m_noFusion(new QCheckBox(tr("no fusion at all (--no-fusion)"), this)), m_time(new QComboBox(this)),
      m_part(new QComboBox(this)), m_log(new QComboBox(this)), m_read(new QComboBox(this)),
      m_presets(new QComboBox(this)), m_recent(new QComboBox(this)), m_timeout(new QSpinBox(this)),
      m_env(new QTableWidget(0, 2, this)), m_error(new QLabel(this))
{
    setWindowTitle(tr("Launch a program under the probe"));

    // The fields scroll, the error and the buttons stay: on a short screen Run is in view.
    auto *fields = new QWidget(this);
    auto *form = new QVBoxLayout(fields);
    form->setContentsMargins(0, 0, 0, 0);
    form->addLayout(buildPresetRow());
    form->addWidget(buildProgramBox());
    form->addWidget(buildDumpBox());
    form->addWidget(buildOwnBox());
    form->addWidget(buildLineBox());
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(fields);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_error);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    auto *run = buttons->addButton(tr("&Run"), QDialogButtonBox::AcceptRole);
    run->setDefault(true);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, this, &LaunchDialog::accept);
    followFields();
    resize(
        fittingScreen(QSize(std::max(820, fields->sizeHint().width() + 40), fields->sizeHint().height() + 90), this));

    DumpOptions defaults;
    defaults.command = {};
    setOptions(defaults);
}

// The program, its working folder and its environment.
QWidget *LaunchDialog::buildProgramBox()
{
    auto *program = new QGroupBox(tr("Program"), this);
    auto *pf = new QFormLayout(program);
    m_command->setPlaceholderText(tr("e.g. ./llama-cli -m model.gguf -p \"Hello\" -n 64"));
    auto *browse = new QToolButton(this);
    browse->setText(tr("..."));
    browse->setToolTip(tr("Choose the program"));
    auto *cmdRow = new QHBoxLayout;
    cmdRow->addWidget(m_command, 1);
    cmdRow->addWidget(browse);
    addFormRow(pf, tr("&Command:"), cmdRow, m_command);
    auto *browseDir = new QToolButton(this);
    browseDir->setText(tr("..."));
    auto *wdRow = new QHBoxLayout;
    wdRow->addWidget(m_workDir, 1);
    wdRow->addWidget(browseDir);
    addFormRow(pf, tr("&Working folder:"), wdRow, m_workDir);
    m_env->setHorizontalHeaderLabels({tr("Variable"), tr("Value")});
    m_env->horizontalHeader()->setStretchLastSection(true);
    m_env->verticalHeader()->hide();
    m_env->setMaximumHeight(110);
    auto *addEnv = new QPushButton(tr("Add"), this), *removeEnv = new QPushButton(tr("Remove"), this);
    auto *envButtons = new QVBoxLayout;
    envButtons->addWidget(addEnv);
    envButtons->addWidget(removeEnv);
    envButtons->addStretch();
    auto *envRow = new QHBoxLayout;
    envRow->addWidget(m_env, 1);
    envRow->addLayout(envButtons);
    addFormRow(pf, tr("&Environment:"), envRow, m_env);

    connect(browse, &QToolButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Program to run"));
        if (!f.isEmpty())
            m_command->setText(QString::fromStdString(joinCommand({f.toStdString()})));
    });
    connect(browseDir, &QToolButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Working folder"));
        if (!d.isEmpty())
            m_workDir->setText(d);
    });
    connect(addEnv, &QPushButton::clicked, this, [this] {
        m_env->insertRow(m_env->rowCount());
        m_env->setCurrentCell(m_env->rowCount() - 1, 0);
        m_env->editItem(m_env->item(m_env->rowCount() - 1, 0));
    });
    connect(removeEnv, &QPushButton::clicked, this, [this] {
        if (m_env->currentRow() >= 0)
            m_env->removeRow(m_env->currentRow());
        updateCommandLine();
    });
    return program;
}

// msit llm dump's options.
QWidget *LaunchDialog::buildDumpBox()
{
    auto *what = new QGroupBox(tr("What to dump (msit llm dump's options)"), this);
    auto *wf = new QFormLayout(what);
    auto *typeRow = new QHBoxLayout;
    for (int i = 0; i < 8; ++i) {
        m_types[i] = new QCheckBox(QString::fromLatin1(kTypes[i]), this);
        typeRow->addWidget(m_types[i]);
    }
    typeRow->addStretch();
    addFormRow(wf, tr("--&type:"), typeRow, m_types[0]);
    m_types[3]->setToolTip(tr("statistics only, with or without tensor (msit's way to save disk)"));
    m_types[4]->setToolTip(tr("operation_io_tensors: each dumped node's op, parameters, types, shapes and files"));
    m_types[5]->setToolTip(tr("kernel_io_tensors: the same with the backend that ran each node (CPU, CUDA0, ...)"));
    m_types[6]->setToolTip(tr("cpu_profiling/: each selected node's host time per round (the round runs node by "
                              "node: slower, the same results)"));
    m_types[7]->setToolTip(tr("onnx/: the topology as ONNX files (no weights) for Netron, written when the program "
                              "ends"));
    m_tiling->setToolTip(
        tr("each dumped node's parameters: op_param.json beside its tensors, raw bytes under tiling/"));
    m_ids->setPlaceholderText(tr("every operation; e.g. 2_29,3"));
    wf->addRow(tr("-&ids:"), m_ids);
    m_rounds->setPlaceholderText(QStringLiteral("0,0"));
    m_rounds->setToolTip(tr("rounds (graph computes) as inclusive pairs: 1,3 or 3,5,7,7"));
    wf->addRow(tr("-e&r:"), m_rounds);
    m_opNames->setPlaceholderText(tr("op types by prefix, e.g. mul_mat,rms"));
    wf->addRow(tr("-op&name:"), m_opNames);
    m_time->addItems({tr("0: before"), tr("1: after"), tr("2: both"), tr("3: inputs before, outputs after")});
    m_part->addItems({tr("0: inputs"), tr("1: outputs"), tr("2: both")});
    // Two rows: in one the dialog was wider than a 1024-wide screen, its right edge cut off.
    auto *tp = new QHBoxLayout;
    tp->addWidget(new QLabel(tr("-time"), this));
    tp->addWidget(m_time);
    tp->addWidget(new QLabel(tr("-stp"), this));
    tp->addWidget(m_part);
    tp->addStretch();
    wf->addRow(QString(), tp);
    auto *flags = new QHBoxLayout;
    flags->addWidget(m_child);
    flags->addWidget(m_descOnly);
    flags->addWidget(m_tiling);
    flags->addWidget(m_symlink);
    flags->addStretch();
    wf->addRow(QString(), flags);
    m_devices->setPlaceholderText(tr("every device"));
    wf->addRow(tr("-&device:"), m_devices);
    wf->addRow(tr("-&o (output folder):"), m_output);
    m_config->setPlaceholderText(tr("msit's dynamic config JSON (optional)"));
    wf->addRow(tr("-&config:"), m_config);
    m_log->addItems({QStringLiteral("info"), QStringLiteral("debug"), QStringLiteral("warning"),
                     QStringLiteral("error"), QStringLiteral("fatal")});
    wf->addRow(tr("-&l (log level):"), m_log);

    return what;
}

// llmscope's own options.
QWidget *LaunchDialog::buildOwnBox()
{
    auto *own = new QGroupBox(tr("llmscope's own"), this);
    auto *of = new QFormLayout(own);
    auto *checks = new QHBoxLayout;
    checks->addWidget(m_kv);
    checks->addWidget(m_nanInf);
    checks->addWidget(m_children);
    checks->addStretch();
    of->addRow(checks);
    auto *checks2 = new QHBoxLayout;
    checks2->addWidget(m_statsCsv);
    checks2->addWidget(m_statsWithData);
    checks2->addStretch();
    of->addRow(checks2);
    // Fusion: observed, ggml computes each node alone; kept, the program runs the fused kernels it
    // runs unobserved and each chain is read at its end.
    m_keepFusion->setToolTip(tr("Let the backends fuse as they do unobserved (RMS_NORM+MUL, ...) and read each fused "
                                "chain at its last op: the ops inside a chain are not read, and the tree marks them "
                                "\"fused\". Without it every op is read and computed alone."));
    m_noFusion->setToolTip(tr("Turn the backends' fusion off with their own switches (GGML_CPU_DISABLE_FUSION, "
                              "GGML_VK_DISABLE_FUSION, GGML_CUDA_DISABLE_FUSION), as a user would to rule a fused "
                              "kernel out."));
    auto *checks3 = new QHBoxLayout;
    checks3->addWidget(m_keepFusion);
    checks3->addWidget(m_noFusion);
    checks3->addStretch();
    of->addRow(checks3);
    m_read->addItems(
        {QStringLiteral("auto"), QStringLiteral("inline"), QStringLiteral("graph"), QStringLiteral("node")});
    m_timeout->setRange(0, 7 * 24 * 3600);
    m_timeout->setSpecialValueText(tr("none"));
    m_timeout->setSuffix(tr(" s"));
    auto *rt = new QHBoxLayout;
    rt->addWidget(new QLabel(tr("--read"), this));
    rt->addWidget(m_read);
    rt->addWidget(new QLabel(tr("--timeout"), this));
    rt->addWidget(m_timeout);
    rt->addStretch();
    of->addRow(rt);
    m_followTokens->setPlaceholderText(tr("a golden dump: the program consumes its recorded tokens (optional)"));
    m_followTokens->setToolTip(tr("--follow-tokens: each round's token ids come from the golden dump, so the rounds "
                                  "stay comparable after the program's own choices diverge"));
    of->addRow(tr("--&follow-tokens:"), m_followTokens);
    m_watch->setPlaceholderText(tr("op ids whose outputs are re-read after every later node, e.g. 1_1 (optional)"));
    m_watch->setToolTip(tr("--watch: records the first node after which a watched output changed (memory reused or "
                           "written over too early)"));
    of->addRow(tr("--&watch:"), m_watch);

    return own;
}

// The command line, both ways: it follows the fields, and a line pasted fills them.
QWidget *LaunchDialog::buildLineBox()
{
    auto *lineBox = new QGroupBox(tr("Command line (edit or paste one to fill the dialog)"), this);
    auto *lb = new QHBoxLayout(lineBox);
    auto *copy = new QPushButton(tr("&Copy"), this);
    lb->addWidget(m_line, 1);
    lb->addWidget(copy);
    m_error->setObjectName(QStringLiteral("LaunchError"));
    m_error->setStyleSheet(QStringLiteral("color: #b00000"));
    m_error->setWordWrap(true);

    connect(copy, &QPushButton::clicked, this, [this] { QGuiApplication::clipboard()->setText(m_line->text()); });
    return lineBox;
}

// Presets and recent launches.
QLayout *LaunchDialog::buildPresetRow()
{
    auto *presetRow = new QHBoxLayout;
    m_presets->setEditable(false);
    m_presets->addItem(tr("(presets)"));
    m_presets->addItems(LaunchHistory::presetNames());
    auto *save = new QPushButton(tr("Save preset..."), this), *del = new QPushButton(tr("Delete preset"), this);
    m_recent->addItem(tr("(recent launches)"));
    for (const QString &r : LaunchHistory::recent())
        m_recent->addItem(r.section(QLatin1Char('\n'), 0, 0).left(90), r);
    presetRow->addWidget(m_presets);
    presetRow->addWidget(save);
    presetRow->addWidget(del);
    presetRow->addWidget(m_recent, 1);

    connect(save, &QPushButton::clicked, this, &LaunchDialog::savePreset);
    connect(del, &QPushButton::clicked, this, &LaunchDialog::deletePreset);
    connect(m_presets, &QComboBox::activated, this, [this](int i) {
        if (i > 0)
            loadPreset(m_presets->itemText(i));
    });
    connect(m_recent, &QComboBox::activated, this, [this](int i) {
        if (i <= 0)
            return;
        const QString r = m_recent->itemData(i).toString();
        setCommandLine(r.section(QLatin1Char('\n'), 0, 0));
        m_workDir->setText(r.section(QLatin1Char('\n'), 1));
    });
    return presetRow;
}

// Every field rewrites the command line as it changes.
void LaunchDialog::followFields()
{
    for (QLineEdit *e :
         {m_command, m_workDir, m_ids, m_rounds, m_opNames, m_devices, m_output, m_config, m_followTokens, m_watch})
        connect(e, &QLineEdit::textChanged, this, &LaunchDialog::updateCommandLine);
    for (QCheckBox *c : m_types)
        connect(c, &QCheckBox::toggled, this, &LaunchDialog::updateCommandLine);
    for (QCheckBox *c : {m_descOnly, m_child, m_kv, m_tiling, m_nanInf, m_symlink, m_statsCsv, m_statsWithData,
                         m_children, m_keepFusion, m_noFusion})
        connect(c, &QCheckBox::toggled, this, &LaunchDialog::updateCommandLine);
    for (QComboBox *c : {m_time, m_part, m_log, m_read})
        connect(c, &QComboBox::currentIndexChanged, this, &LaunchDialog::updateCommandLine);
    connect(m_timeout, &QSpinBox::valueChanged, this, &LaunchDialog::updateCommandLine);
    connect(m_env, &QTableWidget::itemChanged, this, &LaunchDialog::updateCommandLine);
    connect(m_line, &QLineEdit::textEdited, this, &LaunchDialog::commandLineEdited);
    // "./" and "the current folder" say where they are: the window's own folder is not one a user
    // knows
    auto whereFolders = [this] {
        const QString wd = m_workDir->text().trimmed();
        const QString folder =
            QDir::cleanPath(QDir::current().absoluteFilePath(wd.isEmpty() ? QStringLiteral(".") : wd));
        m_workDir->setPlaceholderText(tr("the current folder, %1").arg(QDir::currentPath()));
        m_output->setPlaceholderText(tr("./, the working folder: %1").arg(folder));
    };
    connect(m_workDir, &QLineEdit::textChanged, this, whereFolders);
    whereFolders();
}

DumpOptions LaunchDialog::options() const
{
    std::vector<std::string> a{"--exec", m_command->text().toStdString(), "--type"};
    bool anyType = false;
    for (int i = 0; i < 8; ++i)
        if (m_types[i]->isChecked()) {
            a.push_back(kTypes[i]);
            anyType = true;
        }
    if (!anyType)
        throw Error(tr("choose at least one --type").toStdString());
    auto opt = [&a](const char *name, const QString &v) {
        if (!v.trimmed().isEmpty()) {
            a.push_back(name);
            a.push_back(v.trimmed().toStdString());
        }
    };
    if (m_descOnly->isChecked())
        a.push_back("-sd");
    opt("-ids", m_ids->text());
    opt("-er", m_rounds->text());
    opt("-opname", m_opNames->text());
    opt("-device", m_devices->text());
    opt("-o", m_output->text());
    opt("-config", m_config->text());
    opt("--follow-tokens", m_followTokens->text());
    opt("--watch", m_watch->text());
    a.insert(a.end(),
             {"-child", m_child->isChecked() ? "True" : "False", "-time", std::to_string(m_time->currentIndex()),
              "-stp", std::to_string(m_part->currentIndex()), "-l", m_log->currentText().toStdString(), "--read",
              m_read->currentText().toStdString()});
    if (m_kv->isChecked())
        a.push_back("--kv-cache");
    if (m_tiling->isChecked())
        a.push_back("-tiling");
    if (m_nanInf->isChecked())
        a.push_back("--nan-inf-only");
    if (m_symlink->isChecked())
        a.push_back("-symlink");
    if (m_statsCsv->isChecked())
        a.push_back("--stats-csv");
    if (m_statsWithData->isChecked())
        a.push_back("--stats-with-data");
    if (m_children->isChecked())
        a.push_back("--children");
    if (m_keepFusion->isChecked())
        a.push_back("--keep-fusion");
    if (m_noFusion->isChecked())
        a.push_back("--no-fusion");
    if (m_timeout->value() > 0)
        a.insert(a.end(), {"--timeout", std::to_string(m_timeout->value())});
    if (m_command->text().trimmed().isEmpty())
        throw Error(tr("give the program to run, e.g. ./llama-cli -m model.gguf").toStdString());
    return parseDumpOptions(a);
}

LaunchSettings LaunchDialog::settings() const
{
    LaunchSettings s;
    s.workingDirectory = m_workDir->text().trimmed();
    for (int r = 0; r < m_env->rowCount(); ++r) {
        const auto *k = m_env->item(r, 0), *v = m_env->item(r, 1);
        if (k && !k->text().trimmed().isEmpty())
            s.environment.insert(k->text().trimmed(), v ? v->text() : QString());
    }
    return s;
}

void LaunchDialog::setOptions(const DumpOptions &o, const LaunchSettings &s)
{
    m_filling = true;
    m_command->setText(o.command.empty() ? QString()
                                         : QString::fromStdString(joinCommandLine({o.environment, o.command})));
    for (int i = 0; i < 8; ++i)
        m_types[i]->setChecked(std::find(o.types.begin(), o.types.end(), kTypes[i]) != o.types.end());
    m_descOnly->setChecked(o.descOnly);
    m_ids->setText(QString::fromStdString(o.ids));
    m_rounds->setText(o.rounds == "0,0" ? QString() : QString::fromStdString(o.rounds));
    m_opNames->setText(QString::fromStdString(o.opNames));
    m_devices->setText(QString::fromStdString(o.devices));
    m_output->setText(o.output == "./" ? QString() : QString::fromStdString(o.output));
    m_config->setText(QString::fromStdString(o.configFile));
    m_followTokens->setText(QString::fromStdString(o.followTokens));
    m_watch->setText(QString::fromStdString(o.watch));
    m_child->setChecked(o.child);
    m_time->setCurrentIndex(o.time);
    m_part->setCurrentIndex(o.part);
    m_log->setCurrentText(QString::fromStdString(o.logLevel == "warn" ? std::string("warning") : o.logLevel));
    m_read->setCurrentText(QString::fromStdString(o.readMode));
    m_kv->setChecked(o.kvCache);
    m_tiling->setChecked(o.tiling);
    m_nanInf->setChecked(o.nanInfOnly);
    m_symlink->setChecked(o.symlink);
    m_statsCsv->setChecked(o.statsCsv);
    m_statsWithData->setChecked(o.statsWithData);
    m_children->setChecked(o.children);
    m_keepFusion->setChecked(o.keepFusion);
    m_noFusion->setChecked(o.noFusion);
    m_timeout->setValue(o.timeoutSeconds);
    m_workDir->setText(s.workingDirectory);
    m_env->setRowCount(0);
    for (auto it = s.environment.begin(); it != s.environment.end(); ++it) {
        const int r = m_env->rowCount();
        m_env->insertRow(r);
        m_env->setItem(r, 0, new QTableWidgetItem(it.key()));
        m_env->setItem(r, 1, new QTableWidgetItem(it.value()));
    }
    m_filling = false;
    updateCommandLine();
}

QString LaunchDialog::commandLine() const
{
    return LaunchHistory::commandLineFor(options(), settings());
}

bool LaunchDialog::setCommandLine(const QString &line, QString *error)
{
    DumpOptions o;
    LaunchSettings s;
    s.workingDirectory = m_workDir->text();
    if (!LaunchHistory::parseLaunchLine(line, false, &o, &s, error))
        return false;
    setOptions(o, s);
    m_error->clear();
    return true;
}

void LaunchDialog::updateCommandLine()
{
    if (m_filling)
        return;
    try {
        const QString line = commandLine();
        if (!m_editingLine) // the user's own text stays as typed
            m_line->setText(line);
        m_line->setStyleSheet(QString());
        m_error->clear();
    } catch (const Error &e) {
        // No program yet is where the dialog starts, not a mistake: OK says so if pressed.
        m_error->setText(m_command->text().trimmed().isEmpty() ? QString() : QString::fromUtf8(e.what()));
    }
}

void LaunchDialog::commandLineEdited()
{
    QString error;
    m_editingLine = true;
    const bool ok = setCommandLine(m_line->text(), &error);
    m_editingLine = false;
    if (ok) {
        m_line->setStyleSheet(QString());
    } else {
        m_line->setStyleSheet(QStringLiteral("QLineEdit { background: #ffe0e0; }"));
        m_error->setText(error);
    }
}

void LaunchDialog::accept()
{
    try { // a program that cannot start is said here, where what was typed still is
        checkLaunch(options(), settings());
    } catch (const Error &e) {
        m_error->setText(QString::fromUtf8(e.what()));
        return;
    }
    QDialog::accept();
}

void LaunchDialog::savePreset()
{
    QString line;
    try {
        line = commandLine();
    } catch (const Error &e) {
        m_error->setText(QString::fromUtf8(e.what()));
        return;
    }
    const QString name = QInputDialog::getText(this, tr("Save preset"), tr("Preset name:"));
    if (name.trimmed().isEmpty())
        return;
    LaunchHistory::savePreset(name.trimmed(), line, m_workDir->text());
    if (m_presets->findText(name.trimmed()) < 0)
        m_presets->addItem(name.trimmed());
    m_presets->setCurrentText(name.trimmed());
}

void LaunchDialog::loadPreset(const QString &name)
{
    const QStringList p = LaunchHistory::preset(name);
    if (p.isEmpty())
        return;
    QString error;
    if (!setCommandLine(p.value(0), &error))
        m_error->setText(tr("preset '%1' cannot be read: %2").arg(name, error));
    m_workDir->setText(p.value(1));
}

void LaunchDialog::deletePreset()
{
    const int i = m_presets->currentIndex();
    if (i <= 0)
        return;
    LaunchHistory::removePreset(m_presets->itemText(i));
    m_presets->removeItem(i);
}
