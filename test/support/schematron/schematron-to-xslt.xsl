<?xml version="1.0" encoding="UTF-8"?>
<!--
  The project's own compiler from ISO Schematron (queryBinding xslt2, as the Peppol BIS Billing 3.0
  and UBL.BE rules are written) to an XSLT 3.0 stylesheet whose text output has one line per failed
  assert or successful report: flag, id, location (an XPath) and message, separated by tabs. It
  covers what those rules use: ns, lets (of the schema, of phases, of patterns, of rules), phases,
  patterns, rules, asserts, reports, value-of and name in messages, and XSLT functions; it stops
  with an error on what they do not use (abstract patterns and rules, include, extends,
  diagnostics), so nothing is skipped unseen. test/exports/schematron-compiler.test.ts checks it.

  As the standard says: in a pattern, a node is checked by the first rule whose context matches it
  (the rules become templates of the pattern's mode, in falling priority); patterns are
  independent (one mode each); lets of the schema, of the phase and of patterns are global
  variables. Parameters: `phase` (default the schema's defaultPhase, else #ALL) and `patterns`
  (pattern ids, space-separated: only these, whatever the phase; the UBL.BE file holds the Peppol
  and CEN rules too, and only its Belgian pattern applies beside Peppol's own files).
-->
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:sch="http://purl.oclc.org/dsdl/schematron" xmlns:out="urn:x-invoice-mirror:xslt-alias"
  exclude-result-prefixes="sch">
  <xsl:namespace-alias stylesheet-prefix="out" result-prefix="xsl"/>
  <xsl:output method="xml" indent="yes"/>

  <xsl:param name="phase" select="string((/sch:schema/@defaultPhase, '#ALL')[1])"/>
  <xsl:param name="patterns" select="''"/>

  <!-- The patterns that run: those named, else the phase's active ones, else all. -->
  <xsl:variable name="active" as="element(sch:pattern)*">
    <xsl:variable name="all" select="/sch:schema/sch:pattern"/>
    <xsl:choose>
      <xsl:when test="normalize-space($patterns)">
        <xsl:sequence select="$all[@id = tokenize(normalize-space($patterns), ' ')]"/>
      </xsl:when>
      <xsl:when test="$phase = '#ALL'">
        <xsl:sequence select="$all"/>
      </xsl:when>
      <xsl:otherwise>
        <xsl:sequence select="$all[@id = /sch:schema/sch:phase[@id = $phase]/sch:active/@pattern]"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:variable>

  <xsl:template match="/sch:schema">
    <xsl:variable name="unsupported"
      select="//sch:pattern[@abstract = 'true' or @is-a] | //sch:rule[@abstract = 'true'] | //sch:include | //sch:extends | //sch:diagnostics | //@diagnostics | //sch:let[not(@value)] | //sch:pattern[@documents]"/>
    <xsl:if test="$unsupported">
      <xsl:message terminate="yes">schematron-to-xslt: not supported here: <xsl:value-of select="distinct-values($unsupported/name())"/></xsl:message>
    </xsl:if>
    <xsl:if test="normalize-space($patterns) and count($active) ne count(distinct-values(tokenize(normalize-space($patterns), ' ')))">
      <xsl:message terminate="yes">schematron-to-xslt: no pattern with each id of '<xsl:value-of select="$patterns"/>'</xsl:message>
    </xsl:if>
    <xsl:if test="$phase ne '#ALL' and not(normalize-space($patterns)) and not(sch:phase[@id = $phase])">
      <xsl:message terminate="yes">schematron-to-xslt: no phase '<xsl:value-of select="$phase"/>'</xsl:message>
    </xsl:if>
    <out:stylesheet version="3.0">
      <xsl:for-each select="sch:ns">
        <xsl:namespace name="{@prefix}" select="string(@uri)"/>
      </xsl:for-each>
      <out:output method="text"/>
      <xsl:copy-of select="*[namespace-uri() = 'http://www.w3.org/1999/XSL/Transform']"/>
      <xsl:for-each select="sch:let | sch:phase[@id = $phase]/sch:let | $active/sch:let">
        <out:variable name="{@name}" select="{@value}"/>
      </xsl:for-each>
      <out:template match="/">
        <xsl:for-each select="$active">
          <out:apply-templates select="/" mode="{sch:mode(.)}"/>
        </xsl:for-each>
      </out:template>
      <xsl:apply-templates select="$active"/>
    </out:stylesheet>
  </xsl:template>

  <!-- A pattern's mode: its place among all patterns of the schema. -->
  <xsl:function name="sch:mode" as="xs:string" xmlns:xs="http://www.w3.org/2001/XMLSchema">
    <xsl:param name="pattern" as="element(sch:pattern)"/>
    <xsl:sequence select="'pattern-' || count($pattern/preceding-sibling::sch:pattern) + 1"/>
  </xsl:function>

  <xsl:template match="sch:pattern">
    <xsl:variable name="mode" select="sch:mode(.)"/>
    <!-- A node no rule of the pattern matches: go on to its attributes and children. -->
    <out:template match="@*|node()" mode="{$mode}" priority="-1000">
      <out:apply-templates select="@*|node()" mode="{$mode}"/>
    </out:template>
    <xsl:for-each select="sch:rule">
      <out:template match="{@context}" mode="{$mode}" priority="{1000 - position()}">
        <xsl:for-each select="sch:let">
          <out:variable name="{@name}" select="{@value}"/>
        </xsl:for-each>
        <xsl:apply-templates select="sch:assert | sch:report"/>
        <out:apply-templates select="@*|node()" mode="{$mode}"/>
      </out:template>
    </xsl:for-each>
  </xsl:template>

  <!-- An assert speaks when its test is false, a report when it is true. Tabs and the newline are
       written by codepoints-to-string: the generated stylesheet is serialized indented, and an
       indenting serializer may drop a text node of whitespace only. -->
  <xsl:template match="sch:assert | sch:report">
    <out:if test="{if (self::sch:assert) then 'not(' || @test || ')' else @test}">
      <out:text>
        <xsl:value-of select="(@flag, 'error')[1]"/>
      </out:text>
      <out:value-of select="codepoints-to-string(9)"/>
      <out:text>
        <xsl:value-of select="@id"/>
      </out:text>
      <out:value-of select="codepoints-to-string(9)"/>
      <out:value-of select="path()"/>
      <out:value-of select="codepoints-to-string(9)"/>
      <xsl:apply-templates select="node()" mode="message"/>
      <out:value-of select="codepoints-to-string(10)"/>
    </out:if>
  </xsl:template>

  <!-- A message: its text with spaces collapsed, and the values it names. -->
  <xsl:template match="text()" mode="message">
    <xsl:variable name="text" select="replace(., '\s+', ' ')"/>
    <xsl:if test="$text ne ''">
      <out:text>
        <xsl:value-of select="if (not(preceding-sibling::node())) then replace($text, '^ ', '') else if (not(following-sibling::node())) then replace($text, ' $', '') else $text"/>
      </out:text>
    </xsl:if>
  </xsl:template>
  <xsl:template match="sch:value-of" mode="message">
    <out:value-of select="{@select}"/>
  </xsl:template>
  <xsl:template match="sch:name" mode="message">
    <out:value-of select="{if (@path) then 'name(' || @path || ')' else 'name()'}"/>
  </xsl:template>
  <xsl:template match="*" mode="message">
    <xsl:apply-templates select="node()" mode="message"/>
  </xsl:template>
</xsl:stylesheet>
