#include "language_menu.h"

#include <QActionGroup>
#include <QCoreApplication>
#include <QLocale>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>

LanguageMenu::LanguageMenu(QWidget *window, std::function<void()> beforeRestart)
    : QMenu(tr("&Language"), window), m_window(window), m_beforeRestart(std::move(beforeRestart))
{
    auto *languages = new QActionGroup(this);
    const QString chosen = QSettings().value(QStringLiteral("ui/language")).toString();
    for (const auto &[code, name] : {std::pair{QString(), tr("System (%1)").arg(QLocale::system().name())},
                                     std::pair{QStringLiteral("en"), QStringLiteral("English")},
                                     std::pair{QStringLiteral("zh_CN"), QStringLiteral("简体中文")}}) {
        QAction *a = addAction(name);
        a->setCheckable(true);
        a->setChecked(code == chosen);
        a->setData(code);
        languages->addAction(a);
    }
    connect(languages, &QActionGroup::triggered, this, [this](QAction *a) { choose(a->data().toString()); });
}

void LanguageMenu::choose(const QString &code)
{
    QSettings().setValue(QStringLiteral("ui/language"), code);
    if (QMessageBox::question(m_window, tr("Language"),
                              tr("llmscope shows the new language from its next start. Restart now? (A running "
                                 "program is stopped.)")) != QMessageBox::Yes)
        return;
    QStringList args = QCoreApplication::arguments().mid(1);
    for (int i = args.indexOf(QStringLiteral("--lang")); i >= 0; i = args.indexOf(QStringLiteral("--lang")))
        args.remove(i, std::min<qsizetype>(2, args.size() - i)); // the chosen language, not the one it started in
    if (m_beforeRestart)
        m_beforeRestart();
    QProcess::startDetached(QCoreApplication::applicationFilePath(), args);
    m_window->close();
}
