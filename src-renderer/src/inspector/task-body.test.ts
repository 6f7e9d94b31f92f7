import { describe, expect, it } from 'vitest'
import { taskBody } from './task-body'

describe('taskBody', () => {
  it("drops a subagent's label from the start of its task, where the header already shows it", () => {
    expect(taskBody('Map the layout', 'Map the layout\n\nMap the layout of the project and report.')).toBe(
      'Map the layout of the project and report.',
    )
  })

  it('keeps any other task whole: a root task, a task that only starts with the same words, a task that is just the label', () => {
    expect(taskBody('root', 'Survey this project')).toBe('Survey this project')
    expect(taskBody('Map', 'Map the layout\n\nthen more')).toBe('Map the layout\n\nthen more')
    expect(taskBody('Map the layout', 'Map the layout\n\n')).toBe('Map the layout\n\n')
  })
})
