#include "app/hunt/hunt_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>

#include "app/session/launch_history.h"
#include "app/session/launch_plan.h"
#include "app/window/form_rows.h"
#include "core/launch/command_line.h"
#include "core/select/rounds.h"
#include "core/util/error.h"

using namespace llmscope;

HuntDialog::HuntDialog(QWidget *parent, Purpose purpose)
    : QDialog(parent), m_purpose(purpose),
      m_group(purpose == Purpose::Hunt ? QStringLiteral("hunt") : QStringLiteral("quant")),
      m_golden(new QComboBox(this)), m_test(new QComboBox(this)), m_env(new QLineEdit(this)),
      m_rounds(new QLineEdit(this)), m_folder(new QLineEdit(this)), m_budget(new QLineEdit(this)),
      m_error(new QLabel(this))
{
    const bool hunt = purpose == Purpose::Hunt;
    setWindowTitle(hunt ? tr("Hunt the first divergent operation") : tr("Quantization report"));
    for (QComboBox *box : {m_golden, m_test}) {
        box->setEditable(true);
        box->setInsertPolicy(QComboBox::NoInsert);
        box->setMinimumContentsLength(60);
        box->lineEdit()->setPlaceholderText(tr("a program's command line, or llmscope dump --exec \"...\""));
        for (const QString &name : LaunchHistory::presetNames()) {
            const QStringList p = LaunchHistory::preset(name);
            box->addItem(tr("preset %1: %2").arg(name, p.value(0)), p);
        }
        for (const QString &r : LaunchHistory::recent())
            box->addItem(r.section(QLatin1Char('\n'), 0, 0),
                         QStringList{r.section(QLatin1Char('\n'), 0, 0), r.section(QLatin1Char('\n'), 1)});
        box->setCurrentIndex(-1);
    }
    QSettings settings;
    m_golden->setEditText(settings.value(m_group + QStringLiteral("/golden")).toString());
    m_test->setEditText(settings.value(m_group + QStringLiteral("/test")).toString());
    m_env->setText(settings.value(m_group + QStringLiteral("/environment")).toString());
    m_env->setPlaceholderText(tr("NAME=value ... for both programs, e.g. OMP_NUM_THREADS=4"));
    m_env->setToolTip(tr("Settings for both programs. A command line may also begin with its own, as in a shell: "
                         "GGML_VK_VISIBLE_DEVICES=0 ./llama-simple ... (those win)."));
    // Every round reads as the placeholder in the window's language, as Spread's does: an empty field.
    const QString remembered =
        settings.value(m_group + QStringLiteral("/rounds"), hunt ? QString() : QStringLiteral("0,15")).toString();
    m_rounds->setText(hunt && remembered == QLatin1String("all") ? QString() : remembered);
    if (hunt)
        m_rounds->setPlaceholderText(tr("all"));
    m_rounds->setToolTip(hunt ? tr("The rounds to compare (msit's -er): all is every round both programs run, the test "
                                   "consuming golden's tokens; 0,0 is the prompt alone")
                              : tr("The rounds whose logits and activations are compared (msit's -er): 0,15 is the "
                                   "prompt and 15 tokens"));
    m_folder->setText(
        settings
            .value(m_group + QStringLiteral("/folder"),
                   QDir::home().filePath(hunt ? QStringLiteral("llmscope_hunt") : QStringLiteral("llmscope_quant")))
            .toString());
    m_budget->setText(settings.value(QStringLiteral("quant/budget"), QStringLiteral("10%")).toString());
    m_budget->setToolTip(tr("Extra bytes allowed for the weights kept higher, as a share of the test's weight bytes"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b00000"));
    auto *browse = new QPushButton(tr("..."), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Folder for the hunt's dumps"), m_folder->text());
        if (!d.isEmpty())
            m_folder->setText(d);
    });
    auto *folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);
    auto *form = new QFormLayout(this);
    auto *about =
        new QLabel(hunt ? tr("Runs both programs with statistics of every operation, finds the first operation "
                             "whose output departs, runs both again dumping only that operation's tensors, and "
                             "opens the element-by-element diff there.")
                        : tr("Runs the golden program (the F32 or F16 model) and the test (the same program on "
                             "the quantized model, fed golden's tokens), compares every operation and the "
                             "logits, and ranks the weights by what keeping each in a higher type would "
                             "gain per byte; tensor-types.txt in the folder keeps the best within the budget."),
                   this);
    about->setWordWrap(true);
    form->addRow(about);
    form->addRow(tr("&Golden (reference):"), m_golden);
    form->addRow(tr("&Test:"), m_test);
    form->addRow(tr("E&nvironment:"), m_env);
    form->addRow(tr("&Rounds:"), m_rounds);
    if (!hunt)
        form->addRow(tr("Size &budget:"), m_budget);
    else
        m_budget->hide();
    addFormRow(form, tr("&Dumps into:"), folderRow, m_folder);
    form->addRow(m_error);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(hunt ? tr("Hunt") : tr("Make the report"));
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &HuntDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

bool HuntDialog::sides(HuntSide *golden, HuntSide *test, QString *error) const
{
    Environment both;
    try {
        both = parseEnvironment(m_env->text().toStdString());
    } catch (const Error &e) {
        *error = tr("environment: %1").arg(QString::fromUtf8(e.what()));
        return false;
    }
    auto read = [&](QComboBox *box, HuntSide *side, const QString &what) {
        // A preset or recent launch chosen: its line and folder; else the typed line.
        const int i = box->findText(box->currentText());
        const QStringList data = i >= 0 ? box->itemData(i).toStringList() : QStringList();
        const QString line = data.isEmpty() ? box->currentText() : data.value(0);
        if (line.trimmed().isEmpty()) {
            *error = tr("the %1 command is empty").arg(what);
            return false;
        }
        DumpOptions o;
        side->settings = {};
        side->settings.workingDirectory = data.value(1);
        for (const auto &[k, v] : both) // the line's own settings, read next, win
            side->settings.environment.insert(QString::fromStdString(k), QString::fromStdString(v));
        QString why;
        if (!LaunchHistory::parseLaunchLine(line, true, &o, &side->settings, &why)) {
            *error = tr("the %1 command cannot be read: %2").arg(what, why);
            return false;
        }
        side->command = o.command;
        try { // found before anything runs: a typo in the test's waits for no golden run
            findProgram(o.command.at(0), side->settings.workingDirectory);
        } catch (const Error &e) {
            *error = tr("the %1 command cannot run: %2").arg(what, QString::fromUtf8(e.what()));
            return false;
        }
        return true;
    };
    return read(m_golden, golden, tr("golden")) && read(m_test, test, tr("test"));
}

QString HuntDialog::folder() const
{
    return m_folder->text();
}

QString HuntDialog::budget() const
{
    return m_budget->text().trimmed();
}

QString HuntDialog::rounds() const
{
    const QString typed = m_rounds->text().trimmed();
    return typed.isEmpty() && m_purpose == Purpose::Hunt ? QStringLiteral("all") : typed;
}

void HuntDialog::accept()
{
    HuntSide g, t;
    QString error;
    if (!sides(&g, &t, &error)) {
        m_error->setText(error);
        return;
    }
    try {
        Rounds::parse(rounds().toStdString(), m_purpose == Purpose::Hunt); // the hunt takes "all"
    } catch (const Error &e) {
        m_error->setText(tr("rounds: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    if (folder().trimmed().isEmpty()) {
        m_error->setText(tr("choose a folder for the dumps"));
        return;
    }
    if (m_purpose == Purpose::QuantReport &&
        !QRegularExpression(QStringLiteral("^\\s*[0-9]*\\.?[0-9]+\\s*%?\\s*$")).match(budget()).hasMatch()) {
        m_error->setText(tr("budget: '%1' is not a share such as 10% or 0.1").arg(budget()));
        return;
    }
    QSettings settings;
    settings.setValue(m_group + QStringLiteral("/golden"), m_golden->currentText());
    settings.setValue(m_group + QStringLiteral("/test"), m_test->currentText());
    settings.setValue(m_group + QStringLiteral("/environment"), m_env->text());
    settings.setValue(m_group + QStringLiteral("/rounds"), rounds());
    settings.setValue(m_group + QStringLiteral("/folder"), folder());
    if (m_purpose == Purpose::QuantReport)
        settings.setValue(QStringLiteral("quant/budget"), budget());
    QDialog::accept();
}
