<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>DumpTreeModel</name>
    <message>
        <source>Round %1</source>
        <translation>第 %1 轮</translation>
    </message>
    <message>
        <source>Operation / tensor</source>
        <translation>算子 / 张量</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>Max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>Min</source>
        <translation>最小值</translation>
    </message>
    <message>
        <source>Mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <source>L2 norm</source>
        <translation>L2 范数</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>llmscope - LLM inference precision debugger</source>
        <translation>llmscope - 大模型推理精度调试器</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open dump folder...</source>
        <translation>打开转储目录(&amp;O)...</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About llmscope</source>
        <translation>关于 llmscope(&amp;A)</translation>
    </message>
    <message>
        <source>&lt;h2&gt;No dump open&lt;/h2&gt;&lt;p&gt;Open a dump folder written by llmscope or by &lt;code&gt;msit llm dump&lt;/code&gt; (File &amp;gt; Open dump folder, Ctrl+O).&lt;/p&gt;</source>
        <translation>&lt;h2&gt;尚未打开转储&lt;/h2&gt;&lt;p&gt;打开由 llmscope 或 &lt;code&gt;msit llm dump&lt;/code&gt; 生成的转储目录(文件 &amp;gt; 打开转储目录,Ctrl+O)。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Scanning %1...</source>
        <translation>正在扫描 %1...</translation>
    </message>
    <message>
        <source>Could not open %1</source>
        <translation>无法打开 %1</translation>
    </message>
    <message>
        <source>&lt;h2&gt;Could not open the dump&lt;/h2&gt;&lt;p&gt;%1&lt;/p&gt;</source>
        <translation>&lt;h2&gt;无法打开该转储&lt;/h2&gt;&lt;p&gt;%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>%1 - llmscope</source>
        <translation>%1 - llmscope</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s) in %1 round(s)</source>
        <translation><numerusform>%n 个张量,共 %1 轮</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>; %n file(s) could not be read</source>
        <translation><numerusform>;%n 个文件无法读取</numerusform></translation>
    </message>
    <message>
        <source>Open dump folder</source>
        <translation>打开转储目录</translation>
    </message>
    <message>
        <source>About llmscope</source>
        <translation>关于 llmscope</translation>
    </message>
    <message>
        <source>&lt;b&gt;llmscope %1&lt;/b&gt;&lt;p&gt;Finds the first operation where an accelerated LLM inference departs from its reference. Reads and writes msit&apos;s dump format.&lt;/p&gt;</source>
        <translation>&lt;b&gt;llmscope %1&lt;/b&gt;&lt;p&gt;定位加速后的大模型推理与参考结果首次出现偏差的算子。读写 msit 的转储格式。&lt;/p&gt;</translation>
    </message>
</context>
</TS>
