#include "app/window/language_menu.h"

#include <QActionGroup>
#include <QApplication>
#include <QLocale>
#include <QSettings>

LanguageMenu::LanguageMenu(QWidget *window, std::function<void(const QString &code)> switchTo)
    : QMenu(tr("&Language"), window)
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
    // From the event loop: the switch deletes this menu's window, never inside its own signal.
    connect(languages, &QActionGroup::triggered, this, [switchTo](QAction *a) {
        QMetaObject::invokeMethod(
            qApp, [switchTo, code = a->data().toString()] { switchTo(code); }, Qt::QueuedConnection);
    });
}
